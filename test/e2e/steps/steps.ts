// Step definitions: upstream's step patterns (test/e2e/steps/steps.go RegisterSteps, same regular expressions,
// `(?i)` as the `i` flag, `[[:alnum:]]` as `[A-Za-z0-9]`) bound to our own implementations, which do and check
// what upstream's do. Upstream reads Helm release Secrets for an extension's objects in its standard runtime; we
// read our standard runtime's revision records (./records.ts) and ClusterObjectSets under BoxcutterRuntime.
import { gunzipSync } from 'node:zlib';
import { registry } from '../../support/env.ts';
import { NOT_READY_ANNOTATION } from '../../support/control-plane.ts';
import { buildCatalog, catalogRepo, parseCatalogTable, tagImage } from '../support/catalog.ts';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { Agent, request as undiciRequest } from 'undici';
import { CURVES, GO_CIPHER_SUITES } from '../../../internal/shared/tlsprofile/index.ts';
import { binaries } from '../../support/binaries.ts';
import { freePort } from '../../support/net.ts';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { conditionsOf, fields, parseYaml, splitResource, STEP_TIMEOUT_MS, type Obj, type World } from '../support/world.ts';
import { extensionObjects } from './records.ts';

export interface StepArgument {
  /** A DocString's content. */
  readonly docString?: string;
  /** A DataTable's rows, header first. */
  readonly table?: readonly (readonly string[])[];
}

export type StepFn = (w: World, captures: readonly string[], arg: StepArgument) => Promise<void>;

export interface StepDefinition {
  readonly pattern: RegExp;
  readonly run: StepFn;
}

const steps: StepDefinition[] = [];
const step = (pattern: RegExp, run: StepFn): void => void steps.push({ pattern, run });

/** The first definition whose pattern matches `text` (godog's rule), with its captures. */
export function matchStep(text: string): { def: StepDefinition; captures: string[] } | undefined {
  for (const def of steps) {
    const m = def.pattern.exec(text);
    if (m) return { def, captures: m.slice(1).map((c) => c ?? '') };
  }
  return undefined;
}

const doc = (arg: StepArgument): string => {
  if (arg.docString === undefined) throw new Error('this step needs a DocString');
  return arg.docString;
};
const table = (arg: StepArgument): readonly (readonly string[])[] => {
  if (!arg.table) throw new Error('this step needs a data table');
  return arg.table;
};
const BOXCUTTER = (w: World): boolean => w.profile.gates.BoxcutterRuntime === true;
const CE = 'clusterextensions';
const COS = 'clusterobjectsets';

/** Message equal to the DocString with whitespace collapsed (upstream's messageComparison). */
const exactMessage = (w: World, d: string | undefined): ((m: string) => boolean) | undefined => {
  if (d === undefined) return undefined;
  const want = w.substitute(fields(d));
  return (m) => m === want;
};
/** Message containing the DocString with whitespace collapsed (upstream's messageFragmentComparison). */
const messageFragment = (w: World, d: string | undefined): ((m: string) => boolean) | undefined => {
  if (d === undefined) return undefined;
  const want = w.substitute(fields(d));
  return (m) => fields(m).includes(want);
};
const quoted = (d: string | undefined, w: World, how: string): string => (d === undefined ? '' : ` and message ${how} ${JSON.stringify(w.substitute(fields(d)))}`);

/** key/value data table (header `key | value`), variables substituted. */
function keyValues(w: World, rows: readonly (readonly string[])[]): Map<string, string> {
  if (rows.length < 2) throw new Error('table must have a header row and at least one data row');
  const ki = rows[0]!.indexOf('key');
  const vi = rows[0]!.indexOf('value');
  if (ki < 0 || vi < 0) throw new Error("table must have 'key' and 'value' columns");
  return new Map(rows.slice(1).map((r) => [w.substitute(r[ki] ?? ''), w.substitute(r[vi] ?? '')]));
}

// ---------------------------------------------------------------------------------------------
// OLM, registry

step(/^OLM is available$/, async (w) => {
  // Upstream waits for the operator-controller Deployment to be Available; here the profile's controllers run in
  // this process: both are started, and the API they serve is there.
  await w.waitFor('OLM (catalogd and operator-controller running, ClusterExtension API served)', async () => {
    const r = await w.profile.kube.request('GET', '/apis/olm.operatorframework.io/v1/clusterextensions?limit=1');
    return r.status === 200 ? true : `GET clusterextensions: ${r.status}`;
  });
});

step(/^an image registry is available$/i, async () => {
  const res = await fetch(`${registry().url}/v2/`);
  if (res.status !== 200) throw new Error(`registry ${registry().url}/v2/ answered ${res.status}`);
});

// ---------------------------------------------------------------------------------------------
// ClusterExtension

step(/^bundle "([^"]+)" is installed in version "([^"]+)"$/i, async (w, [name = '', version = '']) => {
  const want = w.substitute(name);
  await w.waitFor(`ClusterExtension ${w.extensionName} status.install.bundle ${want}@${version}`, async () => {
    const ce = await w.getOlm(CE, w.extensionName);
    const b = (ce?.status as { install?: { bundle?: { name?: string; version?: string } } } | undefined)?.install?.bundle;
    return b?.name === want && b.version === version ? true : `install.bundle: ${JSON.stringify(b ?? null)}`;
  });
});

const applyStep: StepFn = async (w, _c, arg) => void (await w.apply(doc(arg)));
step(/^ClusterExtension is applied(?:\s+.*)?$/i, applyStep);

step(/^ClusterExtension version is updated to "([^"]+)"$/i, async (w, [version = '']) => {
  await w.k(['patch', 'clusterextension', w.extensionName, '--type', 'merge', '-p', JSON.stringify({ spec: { source: { catalog: { version } } } })]);
});

step(/^ClusterExtension is updated(?:\s+.*)?$/i, applyStep);

step(/^ClusterObjectSet "([^"]+)" lifecycle is set to "([^"]+)"$/i, async (w, [name = '', lifecycle = '']) => {
  await w.k(['patch', 'clusterobjectset', w.substitute(name), '--type', 'merge', '-p', JSON.stringify({ spec: { lifecycleState: lifecycle } })]);
});

step(/^ClusterExtension is available$/i, async (w) => {
  await w.waitForCondition(CE, w.extensionName, 'Installed', 'True');
});

step(/^ClusterExtension is rolled out$/i, async (w) => {
  await w.waitForCondition(CE, w.extensionName, 'Progressing', 'True', 'Succeeded');
  // As upstream: the extension's objects are gathered for later steps (from its current revision).
  w.extensionObjects = await extensionObjects(w, w.extensionName, BOXCUTTER(w));
});

step(/^ClusterExtension resources are created and labeled$/i, async (w) => {
  if (w.extensionObjects.length === 0) throw new Error('extension objects not found in context');
  for (const obj of w.extensionObjects) {
    const kind = obj.kind ?? '';
    const name = obj.metadata?.name ?? '';
    const ns = obj.metadata?.namespace;
    await w.waitFor(`${kind} ${ns ? `${ns}/` : ''}${name} labelled owner-kind=ClusterExtension, owner-name=${w.extensionName}`, async () => {
      const o = await w.getObject(kind, name, ns ?? '');
      if (!o) return 'not found';
      const l = o.metadata?.labels ?? {};
      const ok = l['olm.operatorframework.io/owner-kind'] === 'ClusterExtension' && l['olm.operatorframework.io/owner-name'] === w.extensionName;
      return ok ? true : `labels ${JSON.stringify(l)}`;
    });
  }
});

step(/^ClusterExtension is removed$/i, async (w) => removeResource(w, `clusterextension/${w.extensionName}`));

step(/^ClusterExtension (?:latest generation )?has (?:been )?reconciled(?: the latest generation)?$/i, async (w) => {
  await w.waitFor(`ClusterExtension ${w.extensionName} Progressing.observedGeneration == metadata.generation`, async () => {
    const ce = await w.getOlm(CE, w.extensionName);
    if (!ce) return 'not found';
    const p = conditionsOf(ce).find((c) => c.type === 'Progressing');
    const gen = ce.metadata?.generation;
    return p?.observedGeneration !== undefined && p.observedGeneration === gen ? true : `generation ${gen}, Progressing.observedGeneration ${p?.observedGeneration}`;
  });
});

step(/^the ClusterExtension's constituent resources are removed$/i, async (w) => {
  if (w.extensionObjects.length === 0) throw new Error('extension objects not found in context');
  for (const obj of w.extensionObjects) await resourceEventuallyNotFound(w, `${obj.kind ?? ''}/${obj.metadata?.name ?? ''}`);
});

step(/^ClusterExtension reports "([^"]+)" as active revision(s?)$/i, async (w, [raw = '']) => {
  const want = new Set(raw.split(',').map((r) => w.substitute(r.trim())));
  await w.waitFor(`ClusterExtension ${w.extensionName} status.activeRevisions = ${[...want].join(', ')}`, async () => {
    const ce = await w.getOlm(CE, w.extensionName);
    const revs = ((ce?.status as { activeRevisions?: { name: string }[] } | undefined)?.activeRevisions ?? []).map((r) => r.name);
    const got = new Set(revs);
    return got.size === want.size && [...want].every((n) => got.has(n)) ? true : `activeRevisions ${JSON.stringify(revs)}`;
  });
});

const A = '([A-Za-z0-9]+)';
step(new RegExp(`^ClusterExtension reports ${A} as ${A} with Reason ${A} and Message:$`, 'i'), async (w, [t = '', s = '', r = ''], arg) => {
  await w.waitForCondition(CE, w.extensionName, t, s, r, exactMessage(w, arg.docString), quoted(arg.docString, w, '='));
});
step(new RegExp(`^ClusterExtension reports ${A} as ${A} with Reason ${A} and Message includes:$`, 'i'), async (w, [t = '', s = '', r = ''], arg) => {
  await w.waitForCondition(CE, w.extensionName, t, s, r, messageFragment(w, arg.docString), quoted(arg.docString, w, 'including'));
});
step(new RegExp(`^ClusterExtension reports ${A} as ${A} with Reason ${A}$`, 'i'), async (w, [t = '', s = '', r = '']) => {
  await w.waitForCondition(CE, w.extensionName, t, s, r);
});
step(new RegExp(`^ClusterExtension reports ${A} as ${A}$`, 'i'), async (w, [t = '', s = '']) => {
  await w.waitForCondition(CE, w.extensionName, t, s);
});
step(new RegExp(`^ClusterObjectSet "([^"]+)" reports ${A} as ${A} with Reason ${A}$`, 'i'), async (w, [n = '', t = '', s = '', r = '']) => {
  await w.waitForCondition(COS, w.substitute(n), t, s, r);
});
step(new RegExp(`^ClusterObjectSet "([^"]+)" reports ${A} as ${A} with Reason ${A} and Message:$`, 'i'), async (w, [n = '', t = '', s = '', r = ''], arg) => {
  await w.waitForCondition(COS, w.substitute(n), t, s, r, exactMessage(w, arg.docString), quoted(arg.docString, w, '='));
});
step(new RegExp(`^ClusterObjectSet "([^"]+)" reports ${A} as ${A} with Reason ${A} and Message includes:$`, 'i'), async (w, [n = '', t = '', s = '', r = ''], arg) => {
  await w.waitForCondition(COS, w.substitute(n), t, s, r, messageFragment(w, arg.docString), quoted(arg.docString, w, 'including'));
});

step(new RegExp(`^ClusterExtension reports ${A} transition between (\\d+) and (\\d+) minutes since its creation$`, 'i'), async (w, [t = '', min = '', max = '']) => {
  const ce = await w.getOlm(CE, w.extensionName);
  if (!ce) throw new Error(`ClusterExtension ${w.extensionName} not found`);
  const created = Date.parse(ce.metadata?.creationTimestamp ?? '');
  const c = conditionsOf(ce).find((x) => x.type === t);
  const transition = Date.parse(c?.lastTransitionTime ?? '');
  if (Number.isNaN(created) || Number.isNaN(transition)) throw new Error(`expected creationTimestamp and ${t}.lastTransitionTime but got ${ce.metadata?.creationTimestamp},${c?.lastTransitionTime}`);
  const d = transition - created;
  if (d < Number(min) * 60_000) throw new Error(`condition ${t} transitioned too early: ${d / 1000}s since creation (expected >= ${min}m)`);
  if (d > Number(max) * 60_000) throw new Error(`condition ${t} transitioned too late: ${d / 1000}s since creation (expected <= ${max}m)`);
});

// ---------------------------------------------------------------------------------------------
// ClusterObjectSet

step(/^ClusterObjectSet is applied(?:\s+.*)?$/i, applyStep);

step(/^ClusterObjectSet "([^"]+)" reconciliation is triggered$/i, async (w, [n = '']) => {
  await w.k(['annotate', 'clusterobjectset', w.substitute(n), '--overwrite', `e2e-trigger=${process.hrtime.bigint()}`]);
});

step(/^ClusterObjectSet "([^"]+)" has observed phase "([^"]+)" with a non-empty digest$/i, async (w, [n = '', phase = '']) => {
  const name = w.substitute(n);
  const p = w.substitute(phase);
  await w.waitFor(`ClusterObjectSet ${name} status.observedPhases[${p}].digest`, async () => {
    const cos = await w.getOlm(COS, name);
    const observed = (cos?.status as { observedPhases?: { name: string; digest?: string }[] } | undefined)?.observedPhases ?? [];
    const d = observed.find((o) => o.name === p)?.digest ?? '';
    return d.trim() !== '' ? true : `observedPhases ${JSON.stringify(observed)}`;
  });
});

step(/^ClusterObjectSet "([^"]+)" is archived$/i, async (w, [n = '']) => {
  await w.waitForCondition(COS, w.substitute(n), 'Progressing', 'False', 'Archived');
});

step(/^ClusterObjectSet "([^"]+)" contains annotation "([^"]+)" with value$/i, async (w, [n = '', key = ''], arg) => {
  const name = w.substitute(n.trim());
  const want = arg.docString ?? '';
  await w.waitFor(`ClusterObjectSet ${name} annotation ${key}=${want}`, async () => {
    const o = await w.getOlm(COS, name);
    const got = o?.metadata?.annotations?.[key];
    return got === want ? true : o ? `${key}=${JSON.stringify(got)}` : 'not found';
  });
});

step(/^ClusterObjectSet "([^"]+)" has label "([^"]+)" with value "([^"]+)"$/i, async (w, [n = '', key = '', value = '']) => {
  const name = w.substitute(n.trim());
  const want = w.substitute(value);
  await w.waitFor(`ClusterObjectSet ${name} label ${key}=${want}`, async () => {
    const o = await w.getOlm(COS, name);
    const got = o?.metadata?.labels?.[key];
    return got === want ? true : o ? `${key}=${JSON.stringify(got)}` : 'not found';
  });
});

interface PhaseObject {
  object?: Obj;
  ref?: { name?: string; namespace?: string; key?: string };
}
const phasesOf = (cos: Obj): { name: string; objects?: PhaseObject[] }[] => ((cos.spec as { phases?: { name: string; objects?: PhaseObject[] }[] } | undefined)?.phases ?? []);

/** The object a phase entry names: inline, or the (possibly gzip'd) JSON under a Secret's key. */
async function resolvePhaseObject(w: World, po: PhaseObject): Promise<Obj> {
  if (po.ref?.name) {
    const { name, namespace = '', key = '' } = po.ref;
    const s = await w.getObject('secret', name, namespace);
    if (!s) throw new Error(`getting Secret ${namespace}/${name}: not found`);
    const data = (s.data as Record<string, string> | undefined)?.[key];
    if (data === undefined) throw new Error(`key ${JSON.stringify(key)} not found in Secret ${namespace}/${name}`);
    let bytes = Buffer.from(data, 'base64');
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes, { maxOutputLength: 10 << 20 });
    return JSON.parse(bytes.toString('utf8')) as Obj;
  }
  if (po.object && Object.keys(po.object).length > 0) return po.object;
  throw new Error('phase object has neither ref nor inline object');
}

step(/^ClusterObjectSet "([^"]+)" phase objects are not found or not owned by the revision$/i, async (w, [n = '']) => {
  const name = w.substitute(n.trim());
  const cos = await existing(w, COS, name);
  for (const phase of phasesOf(cos)) {
    for (const po of phase.objects ?? []) {
      const obj = await resolvePhaseObject(w, po);
      const kind = obj.kind ?? '';
      const objName = obj.metadata?.name ?? '';
      const ns = obj.metadata?.namespace;
      if (kind === '') throw new Error(`clusterobjectset ${JSON.stringify(name)} has a phase object with empty kind`);
      if (objName === '') throw new Error(`clusterobjectset ${JSON.stringify(name)} has a phase object with empty name (kind ${kind})`);
      await w.waitFor(`${kind} ${objName} gone or not owned by ClusterObjectSet ${name}`, async () => {
        const o = await w.getObject(kind, objName, ns);
        if (!o) return true;
        const owned = (o.metadata?.ownerReferences ?? []).some((r) => r.kind === 'ClusterObjectSet' && r.name === name && r.uid === cos.metadata?.uid);
        return owned ? `still owned: ${JSON.stringify(o.metadata?.ownerReferences)}` : true;
      });
    }
  }
});

step(/^ClusterObjectSet "([^"]+)" phase objects are managed in Kubernetes secrets$/i, async (w, [n = '']) => {
  const name = w.substitute(n.trim());
  await w.waitFor(`every phase object of ClusterObjectSet ${name} a ref to a Secret`, async () => {
    const cos = await w.getOlm(COS, name);
    if (!cos) return 'not found';
    const phases = phasesOf(cos);
    if (phases.length === 0) return 'no phases';
    for (const p of phases) {
      if (!p.objects || p.objects.length === 0) return `phase ${p.name} has no objects`;
      for (const o of p.objects) if (!o.ref?.name) return `phase ${p.name} has an object without ref: ${JSON.stringify(o).slice(0, 200)}`;
    }
    return true;
  });
});

/** Waits for an OLM object to exist and returns it. */
async function existing(w: World, plural: typeof CE | typeof COS, name: string): Promise<Obj> {
  let found: Obj | undefined;
  await w.waitFor(`${plural}/${name}`, async () => {
    found = await w.getOlm(plural, name);
    return found ? true : 'not found';
  });
  return found!;
}

async function referredSecretNames(w: World, name: string): Promise<string[]> {
  const cos = await existing(w, COS, name);
  const names = [...new Set(phasesOf(cos).flatMap((p) => (p.objects ?? []).map((o) => o.ref?.name ?? '').filter((x) => x !== '')))];
  if (names.length === 0) throw new Error(`no referred secret names found in ClusterObjectSet ${JSON.stringify(name)}`);
  return names;
}

interface SecretObj extends Obj {
  type?: string;
  immutable?: boolean;
}
async function referredSecrets(w: World, name: string): Promise<SecretObj[]> {
  const out = await w.k(['get', 'secrets', '-n', w.profile.olmNamespace, '-l', `olm.operatorframework.io/revision-name=${name}`, '-o', 'json']);
  return (JSON.parse(out) as { items: SecretObj[] }).items;
}

step(/^ClusterObjectSet "([^"]+)" referred secrets exist in "([^"]+)" namespace$/i, async (w, [n = '', ns = '']) => {
  const name = w.substitute(n.trim());
  const namespace = w.substitute(ns.trim());
  for (const s of await referredSecretNames(w, name)) {
    await w.waitFor(`Secret ${namespace}/${s}`, async () => ((await w.getObject('secret', s, namespace)) ? true : 'not found'));
  }
});

step(/^ClusterObjectSet "([^"]+)" referred secrets are immutable$/i, async (w, [n = '']) => {
  const name = w.substitute(n.trim());
  const secrets = await referredSecrets(w, name);
  if (secrets.length === 0) throw new Error(`no referred secrets found for revision ${JSON.stringify(name)}`);
  for (const s of secrets) if (s.immutable !== true) throw new Error(`referred secret ${s.metadata?.namespace}/${s.metadata?.name} is not immutable`);
});

step(/^ClusterObjectSet "([^"]+)" referred secrets contain labels$/i, async (w, [n = ''], arg) => {
  const name = w.substitute(n.trim());
  const want = keyValues(w, table(arg));
  await w.waitFor(`referred Secrets of ${name} labelled ${JSON.stringify(Object.fromEntries(want))}`, async () => {
    const secrets = await referredSecrets(w, name);
    if (secrets.length === 0) return 'no referred secrets';
    for (const s of secrets) {
      const l = s.metadata?.labels ?? {};
      for (const [k, v] of want) if (l[k] !== v) return `Secret ${s.metadata?.name}: ${k}=${JSON.stringify(l[k])}`;
    }
    return true;
  });
});

step(/^ClusterObjectSet "([^"]+)" referred secrets are owned by the object set$/i, async (w, [n = '']) => {
  const name = w.substitute(n.trim());
  const cos = await w.getOlm(COS, name);
  if (!cos) throw new Error(`getting ClusterObjectSet ${JSON.stringify(name)}: not found`);
  const secrets = await referredSecrets(w, name);
  if (secrets.length === 0) throw new Error(`no referred secrets found for revision ${JSON.stringify(name)}`);
  for (const s of secrets) {
    const ref = (s.metadata?.ownerReferences ?? []).find((r) => r.kind === 'ClusterObjectSet' && r.name === name && r.uid === cos.metadata?.uid);
    if (!ref) throw new Error(`secret ${s.metadata?.namespace}/${s.metadata?.name} does not have ownerReference to ClusterObjectSet ${JSON.stringify(name)} (uid ${cos.metadata?.uid})`);
    if (ref.controller !== true) throw new Error(`secret ${s.metadata?.namespace}/${s.metadata?.name} has ownerReference to ClusterObjectSet but controller is not true`);
  }
});

step(/^ClusterObjectSet "([^"]+)" referred secrets have type "([^"]+)"$/i, async (w, [n = '', type = '']) => {
  const name = w.substitute(n.trim());
  const secrets = await referredSecrets(w, name);
  if (secrets.length === 0) throw new Error(`no referred secrets found for revision ${JSON.stringify(name)}`);
  for (const s of secrets) if (s.type !== type) throw new Error(`secret ${s.metadata?.namespace}/${s.metadata?.name} has type ${JSON.stringify(s.type)}, expected ${JSON.stringify(type)}`);
});

// ---------------------------------------------------------------------------------------------
// resources

async function resourceAvailable(w: World, resource: string): Promise<void> {
  const { kind, name } = splitResource(w.substitute(resource));
  await w.waitFor(`${kind}/${name} in ${w.namespace}`, async () => {
    const r = await w.kRun(['get', kind, name, '-n', w.namespace]);
    return r.code === 0 ? true : r.stderr.trim();
  });
}

async function removeResource(w: World, resource: string): Promise<void> {
  const { kind, name } = splitResource(w.substitute(resource));
  const current = parseYaml(await w.k(['get', kind, name, '-n', w.namespace, '-o', 'yaml']));
  w.removed.push(current);
  await w.k(['delete', kind, name, '-n', w.namespace]);
}

async function resourceEventuallyNotFound(w: World, resource: string): Promise<void> {
  const { kind, name } = splitResource(w.substitute(resource));
  await w.waitFor(`${kind}/${name} not found`, async () => {
    const r = await w.kRun(['get', kind, name, '-n', w.namespace, '--ignore-not-found', '-o', 'yaml']);
    if (r.code !== 0) return r.stderr.trim();
    return r.stdout.trim() === '' ? true : 'still there';
  });
}

step(/^resource "([^"]+)" is installed$/i, async (w, [r = '']) => resourceAvailable(w, r));
step(/^resource "([^"]+)" is available$/i, async (w, [r = '']) => resourceAvailable(w, r));
step(/^resource "([^"]+)" is removed$/i, async (w, [r = '']) => removeResource(w, r));
step(/^resource "([^"]+)" is (?:eventually not found|not found|not installed)$/i, async (w, [r = '']) => resourceEventuallyNotFound(w, r));
step(/^resource "([^"]+)" exists$/i, async (w, [r = '']) => resourceAvailable(w, r));
step(/^resource is applied$/i, applyStep);
step(/^namespace is applied$/i, applyStep);

step(/^deployment "([^"]+)" reports as (not ready|ready)$/i, async (w, [d = '', state = '']) => {
  // Upstream removes or creates the file its readiness probe reads (`kubectl exec … rm|touch /tmp/www/ready`);
  // KWOK's nodes run no container, and report a Pod not ready while it carries olmv1.test/not-ready (as a failing
  // readiness probe would): the same Pod (the first of the Deployment's selector) is marked or unmarked.
  const name = w.substitute(d);
  const selector = JSON.parse(await w.k(['get', 'deployment', '-n', w.namespace, name, '-o', 'jsonpath={.spec.selector.matchLabels}'])) as Record<string, string>;
  const pod = await w.k(['get', 'pod', '-n', w.namespace, '-o', 'jsonpath={.items[0].metadata.name}', ...Object.entries(selector).map(([k, v]) => `--selector=${k}=${v}`)]);
  if (pod.trim() === '') throw new Error(`deployment ${name} has no pod`);
  const annotation = state.toLowerCase() === 'not ready' ? `${NOT_READY_ANNOTATION}=true` : `${NOT_READY_ANNOTATION}-`;
  await w.k(['annotate', 'pod', pod.trim(), '-n', w.namespace, '--overwrite', annotation]);
});

step(/^resource apply fails with error msg containing "([^"]+)"$/i, async (w, [msg = ''], arg) => {
  const yamlText = w.substitute(doc(arg));
  parseYaml(yamlText);
  await w.waitFor(`kubectl apply to fail with ${JSON.stringify(msg)}`, async () => {
    const r = await w.kRun(['apply', '-f', '-'], yamlText);
    if (r.code === 0) return 'apply succeeded';
    return r.stderr.includes(msg) ? true : r.stderr.trim();
  });
});

step(/^resource is applied as user "([^"]+)" in group "([^"]+)"$/i, async (w, [user = '', group = ''], arg) => {
  await w.apply(doc(arg), [`--as=${user}`, `--as-group=${group}`]);
});

step(/^resource apply as user "([^"]+)" in group "([^"]+)" fails with error msg containing "([^"]+)"$/i, async (w, [user = '', group = '', msg = ''], arg) => {
  const yamlText = w.substitute(doc(arg));
  const obj = parseYaml(yamlText);
  const as = [`--as=${user}`, `--as-group=${group}`];
  await w.waitFor(`server-side dry-run apply as ${user}/${group} to be denied with ${JSON.stringify(msg)}`, async () => {
    const r = await w.kRun(['apply', '--dry-run=server', '-f', '-', ...as], yamlText);
    if (r.code === 0) return 'dry-run apply succeeded';
    return r.stderr.includes(msg) ? true : r.stderr.trim();
  });
  const r = await w.kRun(['apply', '-f', '-', ...as], yamlText);
  if (r.code === 0) {
    w.added.push({ kind: (obj.kind ?? '').toLowerCase(), name: obj.metadata?.name ?? '' });
    throw new Error(`expected apply to fail with ${JSON.stringify(msg)}, but it succeeded`);
  }
  if (!r.stderr.includes(msg)) throw new Error(`expected apply error containing ${JSON.stringify(msg)}, got: ${r.stderr}`);
});

step(/^\w+ apply emits warning:$/i, async (w, _c, arg) => {
  const want = doc(arg).trim();
  if (!w.lastApplyStderr.includes(want)) throw new Error(`expected apply warning ${JSON.stringify(want)}, got stderr: ${JSON.stringify(w.lastApplyStderr)}`);
});

step(/^\w+ apply does not emit warning$/i, async (w) => {
  if (w.lastApplyStderr.includes('Warning:')) throw new Error(`expected no warnings, got stderr: ${JSON.stringify(w.lastApplyStderr)}`);
});

step(/^resource "([^"]+)" is eventually restored$/i, async (w, [r = '']) => {
  const { kind, name } = splitResource(w.substitute(r));
  await w.waitFor(`${kind}/${name} re-created with the same ${kind === 'configmap' ? 'data' : 'spec'}`, async () => {
    const res = await w.kRun(['get', kind, name, '-n', w.namespace, '-o', 'yaml']);
    if (res.code !== 0) return res.stderr.trim();
    const obj = parseYaml(res.stdout);
    const created = Date.parse(obj.metadata?.creationTimestamp ?? '');
    const i = w.removed.findIndex(
      (removed) =>
        removed.metadata?.name === obj.metadata?.name &&
        removed.kind === obj.kind &&
        // Upstream compares creation timestamps (second resolution) only; a restore within the same second as the
        // delete is the same wall-clock second, so a new uid also says it is a new object.
        (Date.parse(removed.metadata?.creationTimestamp ?? '') < created || removed.metadata?.uid !== obj.metadata?.uid),
    );
    if (i < 0) return `only the original is there (uid ${obj.metadata?.uid})`;
    const removed = w.removed[i]!;
    const field = kind === 'configmap' ? 'data' : 'spec';
    if (!deepEqual(removed[field], obj[field])) return `${field} differs: ${JSON.stringify(obj[field])}`;
    w.removed.splice(i, 1);
    return true;
  });
});

step(/^resource "([^"]+)" matches$/i, async (w, [r = ''], arg) => {
  const { kind, name } = splitResource(w.substitute(r));
  const required = parseYaml(w.substitute(doc(arg)));
  await w.waitFor(`${kind}/${name} to match ${JSON.stringify(required)}`, async () => {
    const res = await w.kRun(['get', kind, name, '-n', w.namespace, '-o', 'json']);
    if (res.code !== 0) return res.stderr.trim();
    const obj = JSON.parse(res.stdout) as unknown;
    const merged = mergePatch(structuredClone(obj), required);
    return deepEqual(merged, obj) ? true : `differs: ${JSON.stringify(diffPaths(merged, obj)).slice(0, 500)}`;
  });
});

step(/^rollout restart is performed on "([^"]+)"$/i, async (w, [r = '']) => {
  const resource = w.substitute(r);
  const { kind } = splitResource(resource);
  if (kind !== 'deployment') throw new Error(`only deployment resources are supported for rollout restart, got: ${JSON.stringify(kind)}`);
  await w.k(['rollout', 'restart', resource, '-n', w.namespace]);
});

async function addMetadata(w: World, verb: 'annotate' | 'label', r: string, arg: StepArgument): Promise<void> {
  const { kind, name } = splitResource(w.substitute(r));
  const pairs = keyValues(w, table(arg));
  await w.k([verb, kind, name, ...[...pairs].map(([k, v]) => `${k}=${v}`), '--overwrite', '-n', w.namespace]);
}
step(/^annotations are added to "([^"]+)"$/i, async (w, [r = ''], arg) => addMetadata(w, 'annotate', r, arg));
step(/^labels are added to "([^"]+)"$/i, async (w, [r = ''], arg) => addMetadata(w, 'label', r, arg));

async function hasMetadata(w: World, field: 'annotations' | 'labels', r: string, arg: StepArgument): Promise<void> {
  const { kind, name } = splitResource(w.substitute(r));
  const want = keyValues(w, table(arg));
  await w.waitFor(`${kind}/${name} ${field} ${JSON.stringify(Object.fromEntries(want))}`, async () => {
    const o = await w.getObject(kind, name, w.namespace);
    if (!o) return 'not found';
    const got = o.metadata?.[field] ?? {};
    for (const [k, v] of want) if (got[k] !== v) return `${k}=${JSON.stringify(got[k])}`;
    return true;
  });
}
step(/^resource "([^"]+)" has annotations$/i, async (w, [r = ''], arg) => hasMetadata(w, 'annotations', r, arg));
step(/^resource "([^"]+)" has labels$/i, async (w, [r = ''], arg) => hasMetadata(w, 'labels', r, arg));

step(/^deployment "([^"]+)" pod template has annotation "([^"]+)"$/i, async (w, [d = '', key = '']) => {
  const name = w.substitute(d);
  await w.waitFor(`deployment ${name} pod template annotation ${key}`, async () => {
    const o = await w.getObject('deployment', name, w.namespace);
    const a = (o?.spec as { template?: { metadata?: { annotations?: Record<string, string> } } } | undefined)?.template?.metadata?.annotations ?? {};
    return key in a ? true : `annotations ${JSON.stringify(a)}`;
  });
});

step(/^deployment "([^"]+)" rollout is complete$/i, async (w, [d = '']) => {
  const name = w.substitute(d);
  await w.waitFor(`deployment ${name} rollout complete`, async () => {
    const r = await w.kRun(['rollout', 'status', `deployment/${name}`, '-n', w.namespace, '--watch=false']);
    return r.code === 0 && r.stdout.includes('successfully rolled out') ? true : (r.stdout + r.stderr).trim();
  });
});

step(/^deployment "([^"]+)" has (\d+) replica sets?$/i, async (w, [d = '', count = '']) => {
  const name = w.substitute(d);
  await w.waitFor(`deployment ${name} with ${count} ReplicaSets, one of them with ready replicas`, async () => {
    const dep = await w.getObject('deployment', name, w.namespace);
    if (!dep) return 'deployment not found';
    const match = (dep.spec as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels ?? {};
    const sel = Object.entries(match).map(([k, v]) => `${k}=${v}`);
    const out = await w.k(['get', 'rs', '-n', w.namespace, ...(sel.length ? ['-l', sel.join(',')] : []), '-o', 'json']);
    type RS = Obj & { status?: { replicas?: number; readyReplicas?: number } };
    const owned = (JSON.parse(out) as { items: RS[] }).items.filter((rs) => (rs.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Deployment' && o.uid === dep.metadata?.uid));
    if (owned.length !== Number(count)) return `${owned.length} ReplicaSets`;
    return owned.some((rs) => (rs.status?.replicas ?? 0) > 0 && (rs.status?.readyReplicas ?? 0) > 0) ? true : 'no ReplicaSet with ready replicas';
  });
});

step(/^ClusterExtension reconciliation is triggered$/i, async (w) => {
  const ce = await w.getOlm(CE, w.extensionName);
  if (!ce) throw new Error(`failed to get ClusterExtension ${w.extensionName}: not found`);
  const current = (ce.spec as { install?: { preflight?: { crdUpgradeSafety?: { enforcement?: string } } } }).install?.preflight?.crdUpgradeSafety?.enforcement;
  const next = current === 'None' ? 'Strict' : 'None';
  await w.k(['patch', 'clusterextension', w.extensionName, '--type=merge', '-p', JSON.stringify({ spec: { install: { preflight: { crdUpgradeSafety: { enforcement: next } } } } })]);
});

// ---------------------------------------------------------------------------------------------
// namespaces, service accounts

step(/^namespace "([^"]*)" is available$/i, async (w, [ns = '']) => {
  const name = w.substitute(ns);
  await w.k(['apply', '-f', '-'], `---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`);
});

/** Upstream's testdata/serviceaccount-template.yaml, our own words: the test namespace and the account. */
async function applyServiceAccount(w: World, sa: string): Promise<void> {
  await w.k(
    ['apply', '-f', '-'],
    `---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${w.namespace}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${sa}\n  namespace: ${w.namespace}\n`,
  );
}

/** RBAC upstream grants a ServiceAccount for its ClusterObjectSet scenarios (pvc-probe-sa-boxcutter-rbac-template.yaml). */
const PVC_PROBE_RBAC = (ns: string, sa: string): Obj[] => [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: `${ns}-${sa}-clusterrole` },
    rules: [
      { apiGroups: ['olm.operatorframework.io'], resources: ['clusterobjectsets/finalizers'], verbs: ['update'] },
      { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['create', 'update', 'get', 'delete', 'patch'] },
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: `${ns}-${sa}-role`, namespace: ns },
    rules: [{ apiGroups: [''], resources: ['configmaps', 'persistentvolumeclaims', 'pods', 'serviceaccounts'], verbs: ['create', 'update', 'get', 'delete', 'patch'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${ns}-${sa}-binding` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${ns}-${sa}-clusterrole` },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${ns}-${sa}-binding`, namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${ns}-${sa}-role` },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
  },
];

step(/^ServiceAccount "([^"]*)" with needed permissions is available in test namespace$/i, async (w, [sa = '']) => {
  const runtime = BOXCUTTER(w) ? 'boxcutter' : 'helm';
  // Upstream has a template <sa>-<runtime>-rbac-template.yaml per account and runtime; the features use one.
  if (sa !== 'pvc-probe-sa' || runtime !== 'boxcutter') throw new Error(`failed to read template file '${sa}-${runtime}-rbac-template.yaml': no such template`);
  await applyServiceAccount(w, sa);
  const objs = PVC_PROBE_RBAC(w.namespace, sa);
  await w.k(['apply', '-f', '-'], objs.map((o) => `---\n${JSON.stringify(o)}\n`).join(''));
  for (const o of objs) if (o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding') w.added.push({ kind: o.kind.toLowerCase(), name: o.metadata!.name! });
});

// ---------------------------------------------------------------------------------------------
// catalogs

function catalogName(w: World, user: string): string {
  const c = w.catalogs.get(user);
  if (!c) throw new Error(`no catalog ${JSON.stringify(user)} has been created for this scenario`);
  return c;
}

step(/^catalog "([^"]+)" is deleted$/i, async (w, [user = '']) => {
  await w.k(['delete', 'clustercatalog', catalogName(w, user), '--ignore-not-found=true', '--wait=true']);
});

step(/^catalog "([^"]+)" is updated to version "([^"]+)"$/i, async (w, [user = '', version = '']) => {
  const name = catalogName(w, user);
  const ref = await w.k(['get', 'clustercatalog', name, '-o', 'jsonpath={.spec.source.image.ref}']);
  const i = ref.lastIndexOf(':');
  if (i < 0) throw new Error(`failed to find tag in image reference ${ref}`);
  await w.k(['patch', 'clustercatalog', name, '--type', 'merge', '-p', JSON.stringify({ spec: { source: { image: { ref: `${ref.slice(0, i)}:${version}` } } } })]);
});

step(/^catalog "([^"]+)" version "([^"]+)" with packages:$/i, async (w, [user = '', version = ''], arg) => {
  const built = await buildCatalog(user, w.id, parseCatalogTable(table(arg)), version);
  for (const [orig, name] of built.packageNames) w.packageNames.set(orig, name);
});

step(/^catalog "([^"]+)" image version "([^"]+)" is also tagged as "([^"]+)"$/i, async (w, [user = '', from = '', to = '']) => {
  await tagImage(catalogRepo(user, w.id), from, to);
});

step(/^a catalog "([^"]+)" with packages:$/i, async (w, [user = ''], arg) => {
  const built = await buildCatalog(user, w.id, parseCatalogTable(table(arg)), 'v1');
  w.catalogs.set(user, built.catalogName);
  for (const [orig, name] of built.packageNames) w.packageNames.set(orig, name);
  const catalog: Obj = {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: {
      name: built.catalogName,
      annotations: { 'e2e.olm.operatorframework.io/feature': w.feature, 'e2e.olm.operatorframework.io/scenario': w.scenario },
    },
    spec: { priority: 0, source: { type: 'Image', image: { pollIntervalMinutes: 1, ref: built.imageRef } } },
  };
  const r = await w.kRun(['apply', '-f', '-'], JSON.stringify(catalog));
  if (r.code !== 0) throw new Error(`failed to apply ClusterCatalog: ${r.stderr}`);
});

step(/^catalog "([^"]+)" is labeled with "([^"]+)"$/i, async (w, [user = '', label = '']) => {
  await w.k(['label', 'clustercatalog', catalogName(w, user), label, '--overwrite']);
});

step(/^catalog "([^"]+)" is reconciled$/i, async (w, [user = '']) => {
  const name = catalogName(w, user);
  const leader = await componentReady(w, 'catalogd');
  // The leader's log says it reconciled the catalog, which is Serving and Progressing (Succeeded), unpacked after the
  // leader Pod was created (upstream's ScenarioCatalogIsReconciled).
  await w.waitFor(`"reconcile ending" for ${name} in ${leader}'s log`, async () => {
    const r = await w.kRun(['logs', leader, '-n', w.profile.olmNamespace, '--all-containers=true', '--tail=1000']);
    return r.code === 0 && r.stdout.split('\n').some((l) => l.includes('reconcile ending') && l.includes(name)) ? true : `exit ${r.code}`;
  });
  await w.waitFor(`ClusterCatalog ${name} unpacked after ${leader} was created`, async () => {
    const c = await w.getOlm('clustercatalogs', name);
    const conditions = c ? conditionsOf(c) : [];
    const has = (type: string, reason: string): boolean => conditions.some((x) => x.type === type && x.status === 'True' && x.reason === reason);
    if (!has('Serving', 'Available') || !has('Progressing', 'Succeeded')) return `conditions ${JSON.stringify(conditions)}`;
    const unpacked = (c?.status as { lastUnpacked?: string } | undefined)?.lastUnpacked;
    const pod = await w.getObject('pod', leader, w.profile.olmNamespace);
    const created = pod?.metadata?.creationTimestamp;
    return unpacked && created && Date.parse(unpacked) >= Date.parse(created) ? true : `lastUnpacked ${unpacked ?? '-'}, ${leader} created ${created ?? '-'}`;
  });
});

step(new RegExp(`^catalog "([^"]+)" reports ${A} as ${A} with Reason ${A}$`, 'i'), async (w, [user = '', t = '', s = '', r = '']) => {
  const name = w.catalogs.get(user) ?? user;
  await w.waitForCondition('clustercatalogs', name, t, s, r);
});

step(/^(catalogd|operator-controller) is ready to reconcile resources$/i, async (w, [component = '']) => {
  await componentReady(w, component);
});

step(/^the catalogd leader pod is force-deleted$/i, async (w) => {
  const leader = w.leaderPods.get('catalogd');
  if (!leader) throw new Error("catalogd leader pod not found in scenario context; run 'catalogd is ready to reconcile resources' first");
  await w.k(['delete', 'pod', leader, '-n', w.profile.olmNamespace, '--force', '--grace-period=0']);
});

step(/^a new catalogd leader is elected$/i, async (w) => {
  const old = w.leaderPods.get('catalogd');
  await w.waitFor(`a catalogd leader other than ${old ?? '-'}`, async () => {
    const holder = (await w.kRun(['get', 'lease', LEASE_NAMES.catalogd!, '-n', w.profile.olmNamespace, '-o', 'jsonpath={.spec.holderIdentity}'])).stdout.trim();
    const pod = holder.split('_')[0] ?? '';
    if (pod === '' || pod === old) return `holder ${JSON.stringify(holder)}`;
    w.leaderPods.set('catalogd', pod);
    return true;
  });
});

// ---------------------------------------------------------------------------------------------
// metrics (upstream's SendMetricsRequest and friends)

step(/^ServiceAccount "([^"]+)" in test namespace has permissions to fetch "([^"]+)" metrics$/i, async (w, [sa = '', component = '']) => {
  await applyServiceAccount(w, sa);
  const binding: Obj = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${component}-metrics-reader-binding` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${component}-metrics-reader` },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: w.namespace }],
  };
  await w.k(['apply', '-f', '-'], JSON.stringify(binding));
  w.added.push({ kind: 'clusterrolebinding', name: binding.metadata!.name! });
});

step(/^ServiceAccount "([^"]+)" sends request to "([^"]+)" endpoint of "([^"]+)" service$/i, async (w, [sa = '', endpoint = '', component = '']) => {
  const svc = await metricsService(w, component);
  const selector = Object.entries(svc.selector).map(([k, v]) => `${k}=${v}`).join(',');
  const pods = (JSON.parse(await w.k(['get', 'pods', '-n', svc.namespace, '-l', selector, '-o', 'json'])) as { items: Obj[] }).items;
  const token = (await w.k(['create', 'token', sa, '-n', w.namespace])).trim();
  w.metricsResponses.clear();
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    await withPortForward(w, svc.namespace, `pod/${name}`, svc.port, async (port) => {
      await w.waitFor(`${endpoint} of ${name} answering 200`, async () => {
        const res = await undiciRequest(`https://127.0.0.1:${port}${endpoint}`, { headers: { authorization: `Bearer ${token}` }, dispatcher: insecureAgent() });
        const body = await res.body.text();
        if (res.statusCode !== 200) return `${res.statusCode} ${body.slice(0, 200)}`;
        w.metricsResponses.set(name, body);
        return true;
      });
    });
  }
});

step(/^Prometheus metrics are returned in the response$/i, (w) => {
  for (const [pod, text] of w.metricsResponses) {
    if (text === '') throw new Error(`metrics response is empty for pod ${pod}`);
    // The text exposition format: comments, blank lines and samples `name[{labels}] value [timestamp]`.
    const bad = text.split('\n').find((l) => l !== '' && !l.startsWith('#') && !/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+( -?\d+)?$/.test(l));
    if (bad !== undefined) throw new Error(`failed to parse metrics response for pod ${pod}: ${JSON.stringify(bad)}`);
    if (!text.split('\n').some((l) => l !== '' && !l.startsWith('#'))) throw new Error(`metrics response does not contain any metrics for pod ${pod}`);
  }
  return Promise.resolve();
});

// ---------------------------------------------------------------------------------------------
// TLS profiles (upstream's tls_steps.go)

step(/^the "([^"]+)" deployment is configured with custom TLS minimum version "([^"]+)"$/i, async (w, [component = '', version = '']) => {
  await configureCustomTLS(w, component, version, '', '');
});

step(/^the "([^"]+)" deployment is configured with custom TLS version "([^"]+)", ciphers "([^"]+)", and curves "([^"]+)"$/i, async (w, [component = '', version = '', ciphers = '', curves = '']) => {
  await configureCustomTLS(w, component, version, ciphers, curves);
});

step(/^the "([^"]+)" metrics endpoint accepts a TLS 1\.3 connection$/i, async (w, [component = '']) => {
  await metricsHandshake(w, component, { minVersion: 'TLSv1.3' }, `${component} metrics endpoint rejected a TLS 1.3 connection`);
});

step(/^the "([^"]+)" metrics endpoint rejects a TLS 1\.2 connection$/i, async (w, [component = '']) => {
  await metricsRefusal(w, component, { maxVersion: 'TLSv1.2' }, `${component} metrics endpoint accepted a TLS 1.2 connection but its profile requires TLS 1.3`);
});

step(/^the "([^"]+)" metrics endpoint negotiates cipher "([^"]+)" over TLS 1\.2$/i, async (w, [component = '', cipher = '']) => {
  const got = await metricsHandshake(w, component, { maxVersion: 'TLSv1.2', ciphers: opensslCipher(cipher) }, `${component} rejected TLS 1.2 connection using cipher ${cipher}`);
  if (got !== cipher) throw new Error(`${component} negotiated cipher ${got} instead of the expected ${cipher}`);
});

step(/^the "([^"]+)" metrics endpoint rejects a TLS 1\.2 connection offering only cipher "([^"]+)"$/i, async (w, [component = '', cipher = '']) => {
  await metricsRefusal(w, component, { maxVersion: 'TLSv1.2', ciphers: opensslCipher(cipher) }, `${component} accepted TLS 1.2 with cipher ${cipher} but should have rejected it (not in configured cipher list)`);
});

step(/^the "([^"]+)" metrics endpoint accepts a TLS 1\.2 connection with cipher "([^"]+)" and curve "([^"]+)"$/i, async (w, [component = '', cipher = '', curve = '']) => {
  const options = { maxVersion: 'TLSv1.2', ciphers: opensslCipher(cipher), ecdhCurve: opensslCurve(curve) } as const;
  await metricsHandshake(w, component, options, `${component} rejected TLS 1.2 connection with cipher ${cipher} and curve ${curve}`);
});

step(/^the "([^"]+)" metrics endpoint rejects a TLS 1\.2 connection with cipher "([^"]+)" and only curve "([^"]+)"$/i, async (w, [component = '', cipher = '', curve = '']) => {
  const options = { maxVersion: 'TLSv1.2', ciphers: opensslCipher(cipher), ecdhCurve: opensslCurve(curve) } as const;
  await metricsRefusal(w, component, options, `${component} accepted TLS 1.2 with cipher ${cipher} and curve ${curve} but should have rejected it`);
});

step(/^the "([^"]+)" metrics endpoint accepts a connection using only curve "([^"]+)"$/i, async (w, [component = '', curve = '']) => {
  await metricsHandshake(w, component, { ecdhCurve: opensslCurve(curve) }, `${component} metrics endpoint rejected a connection offering only curve ${curve}`);
});

step(/^the "([^"]+)" metrics endpoint rejects a connection using only curve "([^"]+)"$/i, async (w, [component = '', curve = '']) => {
  await metricsRefusal(w, component, { ecdhCurve: opensslCurve(curve) }, `${component} metrics endpoint accepted a connection offering only curve ${curve}`);
});

// ---------------------------------------------------------------------------------------------
// proxy (upstream's proxy_steps.go)

step(/^the "(operator-controller|catalogd)" component is configured with HTTPS_PROXY "([^"]+)"$/i, async (w, [component = '', url = '']) => {
  await configureProxy(w, component, url);
});

step(/^the "(operator-controller|catalogd)" component is configured with HTTPS_PROXY pointing to a recording proxy$/i, async (w, [component = '']) => {
  if (!w.profile.hostAddress) throw new Error('cannot reach host from cluster: the profile runs no Pods');
  const proxy = await RecordingProxy.start(w.profile.hostAddress);
  w.proxy = proxy;
  w.restores.push(() => proxy.stop());
  await configureProxy(w, component, proxy.url);
});

step(/^the recording proxy received a CONNECT request for the catalogd service$/i, async (w) => {
  const proxy = w.proxy;
  if (!proxy) throw new Error('no recording proxy was started in this scenario');
  await w.waitFor('a CONNECT for catalogd at the recording proxy', async () => (proxy.hosts.some((h) => h.includes('catalogd')) ? true : `CONNECTs: ${JSON.stringify(proxy.hosts)}`));
});

step(/^ValidatingAdmissionPolicy "([^"]+)" is active$/i, async (w, [n = '']) => {
  const name = w.substitute(n);
  await w.waitFor(`ValidatingAdmissionPolicy ${name} observedGeneration == generation`, async () => {
    const r = await w.kRun(['get', 'validatingadmissionpolicy', name, '-o', 'jsonpath={.metadata.generation},{.status.observedGeneration}']);
    if (r.code !== 0) return r.stderr.trim();
    const [gen = '', observed = ''] = r.stdout.split(',');
    return gen !== '' && observed !== '' && gen === observed ? true : r.stdout;
  });
});

step(/^operator "([^"]+)" target namespace is "([^"]+)"$/i, async (w, [op = '', ns = '']) => {
  const name = w.substitute(op);
  const want = w.substitute(ns);
  const d = JSON.parse(await w.k(['get', 'deployment', '-n', w.namespace, name, '-o', 'json'])) as Obj;
  const got = (d.spec as { template?: { metadata?: { annotations?: Record<string, string> } } }).template?.metadata?.annotations?.['olm.targetNamespaces'];
  if (got !== want) throw new Error(`expected target namespace ${want}, got ${got ?? ''}`);
});

step(/^min value for (ClusterExtension|ClusterObjectSet) ((?:\.[a-zA-Z]+)+) is set to (\d+)$/i, async (w, [type = '', path = '', min = '']) => {
  const crd = type === 'ClusterExtension' ? 'clusterextensions.olm.operatorframework.io' : 'clusterobjectsets.olm.operatorframework.io';
  const schemaPath = path
    .replace(/^\./, '')
    .split('.')
    .map((p) => `properties/${p}`)
    .join('/');
  const patch = [{ op: 'replace', path: `/spec/versions/0/schema/openAPIV3Schema/${schemaPath}/minimum`, value: Number(min) }];
  await w.k(['patch', 'crd', crd, '--type=json', '-p', JSON.stringify(patch)]);
});

step(/^ClusterExtension "([^"]+)" owns (\d+) ClusterObjectSets?$/i, async (w, [n = '', count = '']) => {
  const name = w.substitute(n);
  await w.waitFor(`${count} ClusterObjectSets labelled owner-name=${name}`, async () => {
    const r = await w.kRun(['get', 'clusterobjectsets', '-l', `olm.operatorframework.io/owner-name=${name}`, '-o', 'jsonpath={.items[*].metadata.name}']);
    if (r.code !== 0) return r.stderr.trim();
    const names = r.stdout.trim().split(/\s+/).filter((x) => x !== '');
    return names.length === Number(count) ? true : `ClusterObjectSets ${JSON.stringify(names)}`;
  });
});
step(new RegExp(`^ClusterExtension "([^"]+)" reports ${A} as ${A}$`, 'i'), async (w, [n = '', t = '', s = '']) => {
  await w.waitForCondition(CE, w.substitute(n), t, s);
});
step(new RegExp(`^ClusterExtension "([^"]+)" reports ${A} as ${A} with Reason ${A} and Message includes:$`, 'i'), async (w, [n = '', t = '', s = '', r = ''], arg) => {
  await w.waitForCondition(CE, w.substitute(n), t, s, r, messageFragment(w, arg.docString), quoted(arg.docString, w, 'including'));
});

// ---------------------------------------------------------------------------------------------
// helpers

/** The component's metrics Service (upstream's `<component>-service`): its namespace, selector and `metrics` port. */
async function metricsService(w: World, component: string): Promise<{ namespace: string; selector: Record<string, string>; port: number; name: string }> {
  const name = `${component}-service`;
  const svc = JSON.parse(await w.k(['get', 'service', name, '-n', w.profile.olmNamespace, '-o', 'json'])) as {
    spec: { selector: Record<string, string>; ports: { name?: string; port: number; targetPort?: number | string }[] };
  };
  const port = svc.spec.ports.find((p) => p.name === 'metrics');
  if (!port) throw new Error(`no port named 'metrics' found on service ${name}`);
  return { namespace: w.profile.olmNamespace, selector: svc.spec.selector, port: port.port, name };
}

/** A TLS client that takes any certificate (the e2e certificates are the test's own), as upstream's InsecureSkipVerify. */
const insecureAgent = (() => {
  let agent: Agent | undefined;
  return (): Agent => (agent ??= new Agent({ connect: { rejectUnauthorized: false } }));
})();

/**
 * `kubectl port-forward -n <ns> <target> <local>:<remote>` for the time `run` takes (upstream's portForward): a free local
 * port, ready once a TLS handshake through it succeeds.
 */
async function withPortForward<T>(w: World, ns: string, target: string, remote: number, run: (port: number) => Promise<T>): Promise<T> {
  const local = await freePort();
  const { apiserver } = await binaries();
  const child = spawn(apiserver, ['kubectl', `--kubeconfig=${w.profile.cluster.kubeconfigPath}`, 'port-forward', '-n', ns, target, `${local}:${remote}`], { stdio: 'ignore' });
  try {
    await w.waitFor(`port-forward to ${target}:${remote}`, async () => {
      if (child.exitCode !== null) throw new Error(`kubectl port-forward exited ${child.exitCode}`);
      return (await handshake(local, {}).then(() => true as const, (err: Error) => err.message));
    });
    return await run(local);
  } finally {
    child.kill('SIGKILL');
  }
}

/** One TLS handshake with 127.0.0.1:`port`; resolves with the negotiated suite's IANA name. */
function handshake(port: number, options: ConnectionOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, timeout: 3000, ...options }, () => {
      const name = socket.getCipher().standardName;
      socket.destroy();
      resolve(name);
    });
    socket.on('timeout', () => socket.destroy(new Error('handshake timed out')));
    socket.on('error', reject);
  });
}

/** Through a port-forward to the component's metrics Service, a handshake with `options` succeeds; its suite. */
async function metricsHandshake(w: World, component: string, options: ConnectionOptions, failure: string): Promise<string> {
  const svc = await metricsService(w, component);
  return withPortForward(w, svc.namespace, `service/${svc.name}`, svc.port, (port) =>
    handshake(port, options).catch((err: Error) => {
      throw new Error(`${failure}: ${err.message}`);
    }),
  );
}

/** Through a port-forward to the component's metrics Service, a handshake with `options` fails. */
async function metricsRefusal(w: World, component: string, options: ConnectionOptions, accepted: string): Promise<void> {
  const svc = await metricsService(w, component);
  const ok = await withPortForward(w, svc.namespace, `service/${svc.name}`, svc.port, (port) => handshake(port, options).then(() => true, () => false));
  if (ok) throw new Error(accepted);
}

const opensslCipher = (goName: string): string => {
  const c = GO_CIPHER_SUITES[goName];
  if (!c) throw new Error(`unknown cipher ${JSON.stringify(goName)}`);
  return c.openssl;
};
const opensslCurve = (name: string): string => {
  const c = CURVES[name];
  if (!c) throw new Error(`unknown curve name ${JSON.stringify(name)}`);
  return c;
};

/**
 * The component's `manager` args with a custom TLS profile instead of any it had (`--tls-profile=custom`,
 * `--tls-custom-version`, and the ciphers and curves when given), its rollout waited for; its args restored at cleanup
 * (upstream's configureDeploymentCustomTLS, buildCustomTLSArgs).
 */
async function configureCustomTLS(w: World, component: string, version: string, ciphers: string, curves: string): Promise<void> {
  const { index, container } = await managerContainer(w, component);
  const original = container.args ?? [];
  const set = (args: readonly string[]): Promise<void> => patchAndRollOut(w, component, [{ op: 'replace', path: `/spec/template/spec/containers/${index}/args`, value: args }]);
  w.restores.push(() => set(original));
  const kept = original.filter((a) => !/^--tls-(profile|custom-version|custom-ciphers|custom-curves)=/.test(a));
  await set([...kept, '--tls-profile=custom', `--tls-custom-version=${version}`, ...(ciphers ? [`--tls-custom-ciphers=${ciphers}`] : []), ...(curves ? [`--tls-custom-curves=${curves}`] : [])]);
}

/** The component's Deployment's `manager` container and its index (upstream's steps find it by name). */
async function managerContainer(w: World, component: string): Promise<{ index: number; container: { name: string; args?: string[]; env?: { name: string; value?: string }[] } }> {
  const ns = w.profile.olmNamespace;
  const deployment = JSON.parse(await w.k(['get', 'deployment', component, '-n', ns, '-o', 'json'])) as {
    spec: { template: { spec: { containers: { name: string; args?: string[]; env?: { name: string; value?: string }[] }[] } } };
  };
  const containers = deployment.spec.template.spec.containers;
  const index = containers.findIndex((c) => c.name === 'manager');
  if (index < 0) throw new Error(`no container named 'manager' in deployment ${ns}/${component}`);
  return { index, container: containers[index]! };
}

/** A JSON patch of the component's Deployment, then its rollout waited for. */
async function patchAndRollOut(w: World, component: string, patch: readonly object[]): Promise<void> {
  const ns = w.profile.olmNamespace;
  await w.k(['patch', 'deployment', component, '-n', ns, '--type=json', '-p', JSON.stringify(patch)]);
  await w.k(['rollout', 'status', '-n', ns, `deployment/${component}`, '--timeout=5m']);
}

/**
 * The component's `manager` container gets HTTPS_PROXY=`url` and NO_PROXY=the `kubernetes` Service's address (the API
 * server stays direct), its rollout waited for; the env it had is put back at cleanup (upstream's
 * configureDeploymentProxy, restoreDeployment).
 */
async function configureProxy(w: World, component: string, url: string): Promise<void> {
  const { index, container } = await managerContainer(w, component);
  const original = container.env ?? [];
  const kubernetesIp = (await w.k(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  const set = (env: readonly object[]): Promise<void> => patchAndRollOut(w, component, [{ op: 'add', path: `/spec/template/spec/containers/${index}/env`, value: env }]);
  // The first patch of a scenario keeps what to restore; a later one must not replace it with its own.
  if (!w.envPatched.has(component)) {
    w.envPatched.add(component);
    w.restores.push(() => set(original));
  }
  const env = original.filter((e) => e.name !== 'HTTPS_PROXY' && e.name !== 'NO_PROXY');
  await set([...env, { name: 'HTTPS_PROXY', value: url }, { name: 'NO_PROXY', value: kubernetesIp }]);
}

/**
 * An HTTP CONNECT proxy on this machine (at the address Pods reach it) that records the host of every CONNECT and
 * answers 502 Bad Gateway without dialing anything: upstream's recording proxy tunnels, but from its host it cannot
 * reach in-cluster addresses either and answers 502; here it never tries, since nothing may leave this machine.
 */
export class RecordingProxy {
  readonly hosts: readonly string[];
  readonly url: string;
  readonly #server: Server;

  private constructor(server: Server, url: string, hosts: readonly string[]) {
    this.#server = server;
    this.url = url;
    this.hosts = hosts;
  }

  static async start(address: string): Promise<RecordingProxy> {
    const hosts: string[] = [];
    const server = createServer();
    server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      hosts.push(req.url ?? '');
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    server.on('request', (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(405).end());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, address, () => resolve());
    });
    return new RecordingProxy(server, `http://${address}:${(server.address() as AddressInfo).port}`, hosts);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** The leader-election Leases upstream's controllers hold (and ours, internal/shared/manager/options.ts). */
const LEASE_NAMES: Readonly<Record<string, string>> = { catalogd: 'catalogd-operator-lock', 'operator-controller': '9c4404e7.operatorframework.io' };

/**
 * A component's Deployment rolled out and its leader Pod (from its Lease's holder, `<pod>_<uuid>`) recorded in the
 * scenario; returns that Pod (upstream's ComponentIsReadyToReconcile).
 */
async function componentReady(w: World, component: string): Promise<string> {
  const ns = w.profile.olmNamespace;
  const deployment = (await w.k(['get', 'deployments', '-n', ns, '-l', `app.kubernetes.io/name=${component}`, '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
  if (deployment === '') throw new Error(`failed to find deployment for component ${component} in namespace ${ns}: no matching deployments found`);
  await w.k(['rollout', 'status', `deployment/${deployment}`, '-n', ns, `--timeout=${Math.round(STEP_TIMEOUT_MS / 1000)}s`]);
  const lease = LEASE_NAMES[component];
  if (!lease) throw new Error(`no lease name for component: ${component}`);
  let leader = '';
  await w.waitFor(`the ${component} Lease ${lease} held`, async () => {
    const holder = (await w.kRun(['get', 'lease', lease, '-n', ns, '-o', 'jsonpath={.spec.holderIdentity}'])).stdout.trim();
    leader = holder.split('_')[0] ?? '';
    return leader !== '' ? true : 'no holder';
  });
  w.leaderPods.set(component, leader);
  return leader;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386 JSON merge patch of `patch` onto `target` (what upstream's jsonpatch.MergePatch does). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? target : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

function diffPaths(want: unknown, got: unknown, path = ''): Record<string, unknown> {
  if (deepEqual(want, got)) return {};
  if (isObject(want) && isObject(got)) {
    const out: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) Object.assign(out, diffPaths(want[k], got[k], `${path}.${k}`));
    return out;
  }
  return { [path || '.']: { want, got } };
}
