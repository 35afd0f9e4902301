// The README tutorial, end to end: starts `make run` (test/support/run-local.ts) as a user would,
// then runs the ```sh blocks of README.md's "Tutorial" section in order with bash, exactly as
// written, and after each step checks the cluster: the catalog serving, the installed bundle
// version, the operator's Pods Running on simulated nodes, everything gone after uninstall; OLM classic; then the CLI
// installing the same operator again after the classic sections, as a reader would go on. Then: `make run` created
// olmv1-system, and its controllers' logs are one JSON line per record (a reconcile error included), never a stack.
// `make run` listens on fixed ports (registry 5001, catalogd 18443): only this test uses them.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { isNotFound, KubeClient } from '../../../internal/shared/kube/index.ts';
import { binaries } from '../../support/binaries.ts';
import { MakeRun } from '../../support/make-run.ts';
import { realNodesUnavailable } from '../../support/real-node.ts';

/** make run starts a real node where this machine allows one (run-local.ts). */
const REAL_NODES = realNodesUnavailable() === undefined;
import { sleep } from '../../support/net.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

interface Section {
  readonly title: string;
  readonly blocks: string[];
}

/** The ```sh blocks of the README's `## Tutorial` section, grouped by `###` heading ('' before the first). */
function tutorialSections(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.startsWith('## Tutorial'));
  if (start < 0) throw new Error('README.md has no "## Tutorial" section');
  const sections: Section[] = [{ title: '', blocks: [] }];
  let block: string[] | undefined;
  for (const line of lines.slice(start + 1)) {
    if (block) {
      if (line.trim() === '```') {
        sections.at(-1)!.blocks.push(block.join('\n'));
        block = undefined;
      } else block.push(line);
    } else if (line.startsWith('## ')) break;
    else if (line.startsWith('### ')) sections.push({ title: line.slice(4).trim(), blocks: [] });
    else if (line.trim() === '```sh') block = [];
  }
  return sections;
}

interface Ran {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs one block as a bash script with `set -euo pipefail` (any failing command stops it and is
 * named), in the checkout, carrying exported variables from block to block as a terminal would.
 */
function runBlock(block: string, env: NodeJS.ProcessEnv, stateFile: string, timeoutMs = 10 * 60_000): Promise<Ran> {
  const script = [
    `source ${stateFile}`,
    'set -euo pipefail',
    `trap 'echo "FAILED (exit $?): $BASH_COMMAND" >&2' ERR`,
    block,
    `export -p > ${stateFile}`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => out.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: Buffer.concat(out).toString() });
    });
  });
}

let makeRun: MakeRun | undefined;
let tmp = '';
let env: NodeJS.ProcessEnv = {};
let kube: KubeClient | undefined;

const logTail = async (): Promise<string> => (await makeRun?.logTail()) ?? '';

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'olm-tutorial-'));
  // kubectl v1.36: the multi-call control-plane binary, called through a link named kubectl.
  const bin = join(tmp, 'bin');
  await mkdir(bin);
  await symlink((await binaries()).apiserver, join(bin, 'kubectl'));
  // `make run` without a KUBECONFIG: it starts its own cluster and registry.
  makeRun = await MakeRun.start(join(tmp, 'make-run.log'));
  kube = await KubeClient.fromConfig({ kubeconfig: makeRun.kubeconfig });
  env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, KUBECONFIG: makeRun.kubeconfig };
  await writeFile(join(tmp, 'state.sh'), '');
}, 6 * 60_000);

afterAll(async () => {
  await kube?.close();
  await makeRun?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
}, 120_000);

// ---------------------------------------------------------------------------------------------
// Cluster checks

type Obj = KubeObject & Record<string, unknown>;
const CE = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: 'demo-operator' };
const CATALOG = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: 'olm-demo' };
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'greetings.demo.olm.dev' };

async function getOrUndefined(ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<Obj | undefined> {
  try {
    return await kube!.get<Obj>(ref);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const condition = (o: Obj | undefined, type: string): string | undefined =>
  ((o?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find((c) => c.type === type)?.status;

/** Polls until `check` holds (it returns a description of what is still wrong, or undefined). */
async function eventually(what: string, check: () => Promise<string | undefined>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined = 'not checked';
  while (Date.now() < deadline) {
    last = await check();
    if (last === undefined) return;
    await sleep(500);
  }
  throw new Error(`${what}: ${last}`);
}

/**
 * The extension has `version` installed and Available, and the operator runs that version in a Running Pod: on make
 * run's real node where this machine has one (a container whose readiness probe passed), on a simulated node otherwise.
 */
async function installedAndRunning(version: string): Promise<void> {
  await eventually(`demo-operator ${version} installed and running`, async () => {
    const ext = await getOrUndefined(CE);
    const bundle = (ext?.['status'] as { install?: { bundle: { name: string; version: string } } } | undefined)?.install?.bundle;
    if (bundle?.version !== version || bundle.name !== `demo-operator.v${version}`) return `installed bundle ${JSON.stringify(bundle)}`;
    if (condition(ext, 'Installed') !== 'True' || condition(ext, 'Available') !== 'True') return `conditions ${JSON.stringify(ext?.['status'])}`;
    const pods = await kube!.list<Obj>({ apiVersion: 'v1', kind: 'Pod', namespace: 'demo' }, { labelSelector: 'app.kubernetes.io/name=demo-operator' });
    const live = pods.items.filter((p) => !p.metadata.deletionTimestamp);
    const image = `registry.example.com/olm-demo/demo-operator:v${version}`;
    const summary = live.map((p) => {
      const spec = p['spec'] as { nodeName?: string; containers: { image: string }[] };
      return `${p.metadata.name} ${(p['status'] as { phase?: string }).phase} on ${spec.nodeName ?? '-'} ${spec.containers[0]!.image}`;
    });
    const ok = live.filter((p) => {
      const spec = p['spec'] as { nodeName?: string; containers: { image: string }[] };
      const status = p['status'] as { phase?: string; containerStatuses?: { ready: boolean }[] };
      const onNode = REAL_NODES ? spec.nodeName === 'real-node-0' && status.containerStatuses?.[0]?.ready === true : spec.nodeName?.startsWith('kwok-node-');
      return status.phase === 'Running' && onNode && spec.containers[0]!.image === image;
    });
    return ok.length === 1 && live.length === 1 ? undefined : `pods: ${summary.join('; ') || 'none'}`;
  });
}

// ---------------------------------------------------------------------------------------------

const outputs = new Map<string, string>();

/** What each tutorial step must leave behind; every step here must exist in the README. */
const checkpoints: Record<string, () => Promise<void>> = {
  '': async () => {},
  'Add a catalog': async () => {
    expect(condition(await getOrUndefined(CATALOG), 'Serving')).toBe('True');
    expect(outputs.get('Add a catalog')).toMatch(/olm-demo\s+\S+\s+True/);
  },
  'Browse it': async () => {
    const out = outputs.get('Browse it')!;
    expect(out).toContain('demo-operator (default channel stable)');
    expect(out).toContain('{"channel":"stable","entries":[{"name":"demo-operator.v0.1.0"}');
    expect(out).toContain('demo-operator.v0.2.0 is deprecated');
    expect(out).toContain('bundle: demo-operator.v0.1.0');
  },
  'Install an extension': async () => {
    await installedAndRunning('0.1.0');
    // As upstream: no service account named, none made, and the API server had nothing to warn about.
    expect(((await getOrUndefined(CE))?.['spec'] as { serviceAccount?: unknown }).serviceAccount).toBeUndefined();
    expect(outputs.get('Install an extension')).not.toContain('Warning:');
    expect(outputs.get('Install an extension')).toMatch(/greetings\s+greet\s+demo\.olm\.dev\/v1alpha1\s+true\s+Greeting/);
  },
  Upgrade: async () => {
    await installedAndRunning('0.3.0');
  },
  Downgrade: async () => {
    expect(outputs.get('Downgrade')).toContain('error upgrading from currently installed version "0.3.0"');
    await installedAndRunning('0.1.0');
  },
  Uninstall: async () => {
    expect(await getOrUndefined(CE)).toBeUndefined();
    expect(await getOrUndefined(CRD)).toBeUndefined();
    expect(await getOrUndefined(CATALOG)).toBeUndefined();
    expect(await getOrUndefined({ apiVersion: 'v1', kind: 'Namespace', name: 'demo' })).toBeUndefined();
  },
  'Install with OLM classic': async () => {
    const out = outputs.get('Install with OLM classic')!;
    const csv = /operator "demo-operator" installed; installed csv is "(demo-operator\.v[0-9.]+)"/.exec(out)?.[1];
    expect(csv, out).toBeDefined();
    const got = await kube!.get<Obj>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', namespace: 'demo-classic', name: csv! });
    expect((got['status'] as { phase?: string }).phase).toBe('Succeeded');
    expect(out).toMatch(new RegExp(`demo-operator\\s+demo-classic\\s+demo-operator\\s+stable\\s+${csv!.replaceAll('.', '\\.')}\\s+AtLatestKnown`));
    const og = await kube!.list<Obj>({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', namespace: 'demo-classic' });
    // the demo operator supports only AllNamespaces: the group made for it targets no namespace list
    expect(og.items.map((o) => (o['spec'] as { targetNamespaces?: string[] }).targetNamespaces)).toEqual([undefined]);
  },
  'Uninstall with OLM classic': async () => {
    expect(await getOrUndefined({ apiVersion: 'v1', kind: 'Namespace', name: 'demo-classic' })).toBeUndefined();
    expect(await getOrUndefined({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'olm', name: 'olm-demo' })).toBeUndefined();
    expect(await getOrUndefined(CRD)).toBeUndefined();
  },
  // After the classic sections, so the sequence a reader follows (classic, then OLM v1 again) is proven to work.
  'The same with the CLI': async () => {
    const out = outputs.get('The same with the CLI')!;
    expect(out).toContain('demo-operator');
    expect(out).toContain('demo-operator.v0.3.0');
    expect(await getOrUndefined(CE)).toBeUndefined();
    expect(await getOrUndefined(CRD)).toBeUndefined();
    expect(await getOrUndefined(CATALOG)).toBeUndefined();
    expect(await getOrUndefined({ apiVersion: 'v1', kind: 'Namespace', name: 'demo' })).toBeUndefined();
  },
};

describe('README tutorial', () => {
  it('runs every command block against make run, and the cluster follows', async () => {
    const sections = tutorialSections(await readFile(join(root, 'README.md'), 'utf8'));
    expect(sections.map((s) => s.title)).toEqual(Object.keys(checkpoints));
    const state = join(tmp, 'state.sh');
    for (const section of sections) {
      const outs: string[] = [];
      for (const block of section.blocks) {
        const r = await runBlock(block, env, state);
        outs.push(r.output);
        if (r.code !== 0) {
          throw new Error(`tutorial step "${section.title}" failed (exit ${r.code}):\n${block}\n--- output ---\n${r.output}\n--- make run log ---\n${await logTail()}`);
        }
      }
      outputs.set(section.title, outs.join(''));
      await checkpoints[section.title]!();
    }
  }, 20 * 60_000);

  it('make run created olmv1-system, and its controllers log each reconcile error as one line, never a stack', async () => {
    expect(await getOrUndefined({ apiVersion: 'v1', kind: 'Namespace', name: 'olmv1-system' })).toBeDefined();
    const log = (await makeRun!.logTail(Number.MAX_SAFE_INTEGER)).split('\n');
    const controllerLines = log.filter((l) => /^\[(catalogd|operator-controller)\] /.test(l));
    expect(controllerLines.length).toBeGreaterThan(0);
    // Every line a controller writes is one JSON record; a stack frame would be a line of its own.
    for (const l of controllerLines) expect(() => JSON.parse(l.replace(/^\[[a-z-]+\] /, '')), l).not.toThrow();
    expect(log.filter((l) => /^\s+at /.test(l))).toEqual([]);
  });

  it('the happy path logs no error-level line: routine retries and designed refusals are at info or debug', async () => {
    const log = (await makeRun!.logTail(Number.MAX_SAFE_INTEGER)).split('\n');
    if (process.env.OLM_TUTORIAL_LOG) await writeFile(process.env.OLM_TUTORIAL_LOG, log.join('\n'));
    const errors = log.filter((l) => /^\[(catalogd|operator-controller|olm-classic)\] /.test(l) && l.includes('"level":"error"'));
    expect(errors, `error-level lines: ${errors.join(' | ')}`).toEqual([]);
  });
});
