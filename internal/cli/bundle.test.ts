import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll, load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured, type CapturedRun } from './run.ts';
import { RABBITMQ_BUNDLE, renderConformanceDir } from '../../test/support/testdata.ts';

const RENDER = renderConformanceDir();
const ARGOCD = join(RENDER, 'bundles/argocd-operator.v0.6.0');
const RABBITMQ = RABBITMQ_BUNDLE;

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv);

const tmp = mkdtempSync(join(tmpdir(), 'cli-bundle-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Case {
  name: string;
  bundle: string;
  installNamespace: string;
  watchNamespace: string;
  deploymentConfig: unknown;
  expectedDir: string;
}
const { cases } = JSON.parse(readFileSync(join(RENDER, 'cases.json'), 'utf8')) as { cases: Case[] };

describe('kubectl olm bundle render', () => {
  it.each(cases)('prints the golden files of $name in order', async (c) => {
    const args = ['bundle', 'render', join(RENDER, c.bundle), '--install-namespace', c.installNamespace];
    if (c.watchNamespace !== '') args.push('--watch-namespace', c.watchNamespace);
    if (c.deploymentConfig !== null) {
      const file = join(tmp, `${c.name}.json`);
      writeFileSync(file, JSON.stringify({ deploymentConfig: c.deploymentConfig }));
      args.push('--config', file);
    }
    const r = await run(...args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const files = readdirSync(join(RENDER, c.expectedDir)).sort();
    expect(loadAll(r.stdout)).toEqual(files.map((f) => load(readFileSync(join(RENDER, c.expectedDir, f), 'utf8'))));
  });

  it('renders a webhook bundle without a certificate provider by default, as upstream’s renderer library; --cert-provider adds one', async () => {
    type Doc = { kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: { template?: { spec?: { volumes?: { name: string }[] } } } };
    const r = await run('bundle', 'render', RABBITMQ, '--install-namespace', 'rmq');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const docs = loadAll(r.stdout) as Doc[];
    const kinds = docs.map((d) => d.kind);
    expect(kinds.filter((k) => k === 'ValidatingWebhookConfiguration')).toHaveLength(13);
    expect(kinds.filter((k) => k === 'CustomResourceDefinition')).toHaveLength(13);
    expect(kinds).not.toContain('Certificate');
    expect(kinds).not.toContain('Issuer');
    expect(kinds).toEqual([...kinds].sort());
    const annotations = docs.flatMap((d) => Object.keys(d.metadata.annotations ?? {}));
    expect(annotations.filter((a) => a.startsWith('cert-manager.io/') || a.startsWith('service.beta.openshift.io/'))).toEqual([]);
    const volumes = docs.filter((d) => d.kind === 'Deployment').flatMap((d) => (d.spec?.template?.spec?.volumes ?? []).map((v) => v.name));
    expect(volumes).not.toContain('webhook-cert');
    const none = await run('bundle', 'render', RABBITMQ, '--install-namespace', 'rmq', '--cert-provider', 'none');
    expect(none).toEqual(r);

    const cm = await run('bundle', 'render', RABBITMQ, '--install-namespace', 'rmq', '--cert-provider', 'cert-manager');
    expect(cm.code).toBe(0);
    const cmDocs = loadAll(cm.stdout) as Doc[];
    expect(cmDocs.filter((d) => d.kind === 'Certificate' || d.kind === 'Issuer').map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'Certificate/messaging-topology-operator-service-cert',
      'Issuer/messaging-topology-operator-service-cert-selfsigned-issuer',
    ]);
    const vwc = cmDocs.find((d) => d.kind === 'ValidatingWebhookConfiguration')!;
    expect(vwc.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': 'rmq/messaging-topology-operator-service-cert' });
    const os = await run('bundle', 'render', RABBITMQ, '--install-namespace', 'rmq', '--cert-provider', 'openshift-serviceca');
    expect(os.code).toBe(0);
    const osDocs = loadAll(os.stdout) as Doc[];
    expect(osDocs.map((d) => d.kind)).not.toContain('Certificate');
    expect(osDocs.find((d) => d.kind === 'ValidatingWebhookConfiguration')!.metadata.annotations).toEqual({ 'service.beta.openshift.io/inject-cabundle': 'true' });
  });

  it('prints every validation problem and exits 1', async () => {
    const dir = join(tmp, 'bad');
    cpSync(ARGOCD, dir, { recursive: true });
    writeFileSync(join(dir, 'manifests/ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: extra\n');
    writeFileSync(join(dir, 'metadata/annotations.yaml'), 'annotations: {}\n');
    const r = await run('bundle', 'render', dir, '--install-namespace', 'ns');
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'package name is empty\nunsupported resource "extra" with kind "Namespace"\n' });
  });

  it('reports configuration problems with upstream wording (argocd supports AllNamespaces: watchNamespace is anyOf null|string)', async () => {
    const file = join(tmp, 'cfg.yaml');
    writeFileSync(file, 'watchNamespace: Not_Valid\nfoo: 1\n');
    const r = await run('bundle', 'render', ARGOCD, '--install-namespace', 'ns', '--config', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'invalid ClusterExtension configuration: invalid configuration: multiple errors found:\n  - invalid value for field "watchNamespace"\n  - invalid type for field "watchNamespace": got string, want null\n  - field "watchNamespace" must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"\n  - unknown field "foo"\n',
    );
  });

  it('--watch-namespace and a config file watchNamespace render the same; a config file that is not YAML exits 1', async () => {
    const file = join(tmp, 'watch.yaml');
    writeFileSync(file, 'watchNamespace: argocd-watch\n');
    const flag = await run('bundle', 'render', ARGOCD, '--install-namespace', 'argocd-system', '--watch-namespace', 'argocd-watch');
    const cfg = await run('bundle', 'render', ARGOCD, '--install-namespace', 'argocd-system', '--config', file);
    expect(flag.code).toBe(0);
    expect(cfg).toEqual(flag);
    expect((loadAll(flag.stdout) as { kind: string; metadata: { namespace?: string } }[]).filter((d) => d.kind === 'Role').map((d) => d.metadata.namespace)).toEqual([
      'argocd-watch',
    ]);
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, 'a: [\n');
    const r = await run('bundle', 'render', ARGOCD, '--install-namespace', 'ns', '--config', bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^invalid ClusterExtension configuration: /);
  });

  it('is listed in kubectl olm --help', async () => {
    const r = await run('--help');
    expect(r.stdout).toContain('bundle render');
  });

  it.each([
    { args: [ARGOCD], want: '--install-namespace is required' },
    { args: ['--install-namespace', 'ns'], want: 'expected exactly one bundle directory, got 0' },
    { args: [ARGOCD, '--install-namespace', 'ns', '--cert-provider', 'x'], want: 'invalid --cert-provider "x": want cert-manager, openshift-serviceca, none' },
    { args: [ARGOCD, '--install-namespace', 'ns', '--bogus'], want: "Unknown option '--bogus'" },
  ])('usage error: $want', async ({ args, want }) => {
    const r = await run('bundle', 'render', ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${want}`);
    expect(r.stderr).toContain("See 'kubectl olm bundle render --help' for usage.");
  });
});
