// Each pipeline step alone, over typed fakes of its ports: what it changes in the state and the status, which
// ports it calls with what, whether it lets the next step run, and how it classifies a failure.
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { TerminalError, isTerminal } from '../../shared/controller/index.ts';
import { createLogger } from '../../shared/observability/index.ts';
import {
  FakeApplier,
  FakeEvents,
  FakeFinalizers,
  FakePreflight,
  FakeRenderer,
  FakeResolver,
  FakeUnpacker,
  bundle,
  extension,
  installedBundle,
  stateFor,
} from './testing.ts';
import { ServiceAccountNotFoundError, type Resolution } from './ports.ts';
import {
  MISSING_SERVICE_ACCOUNT,
  NOT_READY_RECHECK_MS,
  SERVICE_ACCOUNT_DEPRECATED,
  UNINSTALL_RECHECK_MS,
  apply,
  clusterExtensionSteps,
  ensureFinalizer,
  handleDeletion,
  preflights,
  readInstalled,
  render,
  reportInstalled,
  resolve,
  unpack,
  validate,
  type ExtensionStep,
} from './steps.ts';

const signal = new AbortController().signal;
const cond = (ext: ClusterExtension, type: string): Pick<Condition, 'status' | 'reason' | 'message'> | undefined => {
  const c = ext.status?.conditions?.find((x) => x.type === type);
  return c && { status: c.status, reason: c.reason, message: c.message };
};
const resolution = (version: string): Resolution => ({ bundle: bundle(version), catalog: 'demo-catalog', deprecations: [] });

describe('the default step list', () => {
  it('is upstream’s order', () => {
    const names = clusterExtensionSteps({
      finalizers: new FakeFinalizers(),
      resolver: new FakeResolver(resolution('1.0.0')),
      unpacker: new FakeUnpacker(),
      renderer: new FakeRenderer(),
      preflights: [],
      applier: new FakeApplier(),
    }).map((s) => s.name);
    expect(names).toEqual(['handleDeletion', 'ensureFinalizer', 'validate', 'readInstalled', 'resolve', 'unpack', 'render', 'preflights', 'apply', 'reportInstalled']);
  });
});

/** Runs the steps in order as the reconciler does: the first that returns an outcome ends the pass. */
async function runPass(steps: readonly ExtensionStep[], state: ReturnType<typeof stateFor>): Promise<{ step: string; outcome: unknown }> {
  for (const step of steps) {
    const outcome = await step.run(state, signal);
    if (outcome !== undefined) return { step: step.name, outcome };
  }
  return { step: 'end', outcome: undefined };
}

describe('spec.serviceAccount without the ServiceAccountInstalls gate (upstream v1.11)', () => {
  it('an extension naming a service account that does not exist installs; the deprecation is logged once per pass', async () => {
    const applier = new FakeApplier();
    const preflight = new FakePreflight();
    const events = new FakeEvents();
    const steps = clusterExtensionSteps({
      finalizers: new FakeFinalizers(),
      resolver: new FakeResolver(resolution('1.0.0')),
      unpacker: new FakeUnpacker(),
      renderer: new FakeRenderer(),
      preflights: [preflight],
      applier,
      events,
    });
    const ext = extension(); // spec.serviceAccount.name: installer, which no cluster holds here
    const state = loggedState(ext);
    expect(await runPass(steps, state)).toEqual({ step: 'end', outcome: undefined });
    expect(applier.calls).toEqual(['installed', 'apply']);
    expect(preflight.checked).toHaveLength(1);
    expect(cond(ext, 'Installed')?.status).toBe('True');
    expect(cond(ext, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(events.events.map((e) => e.reason)).toEqual(['Installed']);
    expect(state.lines.filter((l) => l.msg === SERVICE_ACCOUNT_DEPRECATED).map((l) => l.level)).toEqual(['info']);
    expect(JSON.stringify(ext.status)).not.toContain('serviceAccount');

    // Cleared: the next pass reconciles the same way, without the line.
    delete ext.spec!.serviceAccount;
    const cleared = loggedState(ext);
    expect(await runPass(steps, cleared)).toEqual({ step: 'end', outcome: undefined });
    expect(cleared.lines.filter((l) => l.msg === SERVICE_ACCOUNT_DEPRECATED)).toEqual([]);
    expect(cond(ext, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
  });

  it('with the gate (identity given), the same extension stops at the missing account', async () => {
    const applier = new FakeApplier();
    const steps = clusterExtensionSteps({
      finalizers: new FakeFinalizers(),
      resolver: new FakeResolver(resolution('1.0.0')),
      unpacker: new FakeUnpacker(),
      renderer: new FakeRenderer(),
      preflights: [],
      applier,
      identity: { check: async (e) => Promise.reject(new ServiceAccountNotFoundError(e.spec!.serviceAccount!.name!, e.spec!.namespace)) },
    });
    const state = loggedState(extension());
    const { step } = await runPass(steps, state);
    expect(step).toBe('readInstalled');
    expect(applier.calls).toEqual([]);
    expect(cond(state.ext, 'Progressing')?.message).toBe(MISSING_SERVICE_ACCOUNT);
    expect(state.lines.filter((l) => l.msg === SERVICE_ACCOUNT_DEPRECATED)).toEqual([]);
  });
});

describe('handleDeletion', () => {
  const ports = () => ({ finalizers: new FakeFinalizers(), applier: new FakeApplier(), events: new FakeEvents() });

  it('lets a live extension through untouched', async () => {
    const p = ports();
    const state = stateFor(extension());
    expect(await handleDeletion(p).run(state, signal)).toBeUndefined();
    expect([...p.applier.calls, ...p.finalizers.calls]).toEqual([]);
  });

  it('ends the pass for a deleted extension without the finalizer, touching nothing', async () => {
    const p = ports();
    expect(await handleDeletion(p).run(stateFor(extension({ deleting: true, finalizers: [] })), signal)).toEqual({ final: true });
    expect(p.applier.calls).toEqual([]);
  });

  it('uninstalls, then frees the extension with an Uninstalled event', async () => {
    const p = ports();
    const state = stateFor(extension({ deleting: true }));
    expect(await handleDeletion(p).run(state, signal)).toEqual({ final: true });
    expect(p.applier.calls).toEqual(['uninstall']);
    expect(p.finalizers.calls).toEqual(['remove']);
    expect(p.events.events).toEqual([{ type: 'Normal', reason: 'Uninstalled', message: 'Removed every object the extension installed' }]);
    expect(state.statusWrites).toBe(0);
  });

  it('keeps the finalizer while objects are still going, says what it waits for, and looks again soon', async () => {
    const p = ports();
    p.applier.uninstallAnswer = { value: { done: false, message: 'Deployment demo-ns/op: being deleted' } };
    const state = stateFor(extension({ deleting: true }));
    expect(await handleDeletion(p).run(state, signal)).toEqual({ final: true, result: { requeueAfterMs: UNINSTALL_RECHECK_MS } });
    expect(p.finalizers.calls).toEqual([]);
    expect(cond(state.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: 'uninstalling: Deployment demo-ns/op: being deleted' });
    expect(state.statusWrites).toBe(1);
  });

  it('reports an uninstall error on Progressing, writes it and ends the pass with the error', async () => {
    const p = ports();
    const boom = new Error('secrets is forbidden');
    p.applier.uninstallAnswer = { error: boom };
    const state = stateFor(extension({ deleting: true }));
    expect(await handleDeletion(p).run(state, signal)).toEqual({ final: true, err: boom });
    expect(cond(state.ext, 'Progressing')?.message).toBe('uninstalling: secrets is forbidden');
    expect(state.statusWrites).toBe(1);
    expect(p.finalizers.calls).toEqual([]);
  });

  it('a failed finalizer removal ends the pass with that error (retried), no event', async () => {
    const p = ports();
    const conflict = new Error('conflict');
    p.finalizers.removeAnswer = { error: conflict };
    expect(await handleDeletion(p).run(stateFor(extension({ deleting: true })), signal)).toEqual({ final: true, err: conflict });
    expect(p.events.events).toEqual([]);
  });
});

describe('ensureFinalizer', () => {
  it('lets an extension with the finalizer through', async () => {
    const f = new FakeFinalizers();
    expect(await ensureFinalizer({ finalizers: f }).run(stateFor(extension()), signal)).toBeUndefined();
    expect(f.calls).toEqual([]);
  });

  it('adds a missing finalizer and ends the pass (the update brings the extension back)', async () => {
    const f = new FakeFinalizers();
    const state = stateFor(extension({ finalizers: [] }));
    expect(await ensureFinalizer({ finalizers: f }).run(state, signal)).toEqual({ final: true });
    expect(f.calls).toEqual(['add']);
    expect(state.ext.status).toBeUndefined();
  });

  it('a failed add ends the pass with its error and leaves status alone', async () => {
    const f = new FakeFinalizers();
    const err = new Error('the server is shutting down');
    f.addAnswer = { error: err };
    const state = stateFor(extension({ finalizers: [] }));
    expect(await ensureFinalizer({ finalizers: f }).run(state, signal)).toEqual({ final: true, err });
    expect(state.ext.status).toBeUndefined();
  });
});

/** A state whose log lines (JSON records, info and up) are kept. */
function loggedState(ext: ClusterExtension): ReturnType<typeof stateFor> & { lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const log = createLogger({ level: 'info', write: (line) => void lines.push(JSON.parse(line) as { level: string; msg: string }) });
  return Object.assign(stateFor(ext), { log, lines });
}

describe('validate', () => {
  it('lets a catalog source through', async () => {
    expect(await validate().run(stateFor(extension()), signal)).toBeUndefined();
  });

  it('a set spec.serviceAccount (ignored, as upstream v1.11): upstream’s deprecation line at info, status untouched', async () => {
    const state = loggedState(extension());
    expect(await validate().run(state, signal)).toBeUndefined();
    expect(state.lines.map((l) => [l.level, l.msg])).toEqual([['info', SERVICE_ACCOUNT_DEPRECATED]]);
    expect(SERVICE_ACCOUNT_DEPRECATED).toBe(
      "spec.serviceAccount is deprecated, ignored, and will be removed in a future release - operator-controller's cluster-admin service account is used for all cluster interactions",
    );
    expect(state.ext.status).toBeUndefined();
  });

  it('no spec.serviceAccount, or the ServiceAccountInstalls gate honouring it (identity given): no deprecation line', async () => {
    const bare = extension();
    delete bare.spec!.serviceAccount;
    const unset = loggedState(bare);
    expect(await validate().run(unset, signal)).toBeUndefined();
    const gated = loggedState(extension());
    expect(await validate({ identity: { check: async () => undefined } }).run(gated, signal)).toBeUndefined();
    expect([unset.lines, gated.lines]).toEqual([[], []]);
  });

  it('refuses a missing spec.source.catalog with upstream’s text on Installed (Unknown) and Progressing', async () => {
    const ext = extension();
    delete (ext.spec!.source as { catalog?: unknown }).catalog;
    const state = stateFor(ext);
    const out = await validate().run(state, signal);
    const text = 'operation cannot proceed due to the following validation error(s): spec.source.catalog is required';
    expect((out?.err as Error).message).toBe(text);
    expect(cond(ext, 'Installed')).toEqual({ status: 'Unknown', reason: 'Failed', message: text });
    expect(cond(ext, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: text });
  });
});

describe('readInstalled', () => {
  it('records the installed bundle in the state and in status.install', async () => {
    const applier = new FakeApplier();
    applier.installedAnswer = { value: installedBundle('1.0.0') };
    const state = stateFor(extension());
    expect(await readInstalled({ applier }).run(state, signal)).toBeUndefined();
    expect(state.installed?.name).toBe('demo.v1.0.0');
    expect(state.ext.status?.install).toEqual({ bundle: { name: 'demo.v1.0.0', version: '1.0.0' } });
    expect(cond(state.ext, 'Installed')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Installed bundle registry.example/demo-bundle:v1.0.0 successfully' });
  });

  it('nothing installed: Installed=False "No bundle installed"', async () => {
    const state = stateFor(extension());
    expect(await readInstalled({ applier: new FakeApplier() }).run(state, signal)).toBeUndefined();
    expect(cond(state.ext, 'Installed')).toEqual({ status: 'False', reason: 'Failed', message: 'No bundle installed' });
  });

  it('an unreadable record: Installed Unknown with the error, Progressing "retrying to get installed bundle"', async () => {
    const applier = new FakeApplier();
    const err = new Error('revision record demo-1 is corrupt');
    applier.installedAnswer = { error: err };
    const state = stateFor(extension());
    expect(await readInstalled({ applier }).run(state, signal)).toEqual({ err });
    expect(cond(state.ext, 'Installed')).toEqual({ status: 'Unknown', reason: 'Failed', message: 'revision record demo-1 is corrupt' });
    expect(cond(state.ext, 'Progressing')?.message).toBe('retrying to get installed bundle');
  });

  it('a missing service account (or namespace): upstream’s one line in Installed, its words in Progressing, nothing read', async () => {
    const applier = new FakeApplier();
    const err = new ServiceAccountNotFoundError('installer', 'demo-ns');
    const identity = { check: async () => Promise.reject(err) };
    const state = stateFor(extension());
    expect(await readInstalled({ applier, identity }).run(state, signal)).toEqual({ err });
    expect(applier.calls).toEqual([]);
    expect(cond(state.ext, 'Installed')).toEqual({
      status: 'Unknown',
      reason: 'Failed',
      message: 'service account "installer" not found in namespace "demo-ns": unable to authenticate with the Kubernetes cluster.',
    });
    expect(cond(state.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: MISSING_SERVICE_ACCOUNT });
    expect(MISSING_SERVICE_ACCOUNT).toBe('installation cannot proceed due to missing ServiceAccount');
  });

  it('an existing service account: the install state is read', async () => {
    const applier = new FakeApplier();
    const checked: string[] = [];
    const identity = { check: async (e: ClusterExtension) => void checked.push(e.spec?.serviceAccount?.name ?? '') };
    expect(await readInstalled({ applier, identity }).run(stateFor(extension()), signal)).toBeUndefined();
    expect([checked, applier.calls]).toEqual([['installer'], ['installed']]);
  });
});

describe('resolve', () => {
  it('puts the resolution in the state, asks with the installed bundle, and sets the deprecation conditions', async () => {
    const resolver = new FakeResolver({ ...resolution('2.0.0'), deprecations: [{ reference: { schema: 'olm.package' }, message: 'package demo is deprecated' }] });
    const state = stateFor(extension());
    state.installed = installedBundle('1.0.0');
    expect(await resolve({ resolver, applier: new FakeApplier() }).run(state, signal)).toBeUndefined();
    expect(resolver.calls).toEqual([{ installed: installedBundle('1.0.0') }]);
    expect(state.resolution?.bundle.name).toBe('demo.v2.0.0');
    expect(cond(state.ext, 'PackageDeprecated')).toEqual({ status: 'True', reason: 'Deprecated', message: 'package demo is deprecated' });
  });

  it('nothing installed and nothing resolves: the resolver’s error, retried, Installed False', async () => {
    const resolver = new FakeResolver(resolution('1.0.0'));
    const err = new Error('no bundles found for package "demo"');
    resolver.resolveAnswer = { error: err };
    const state = stateFor(extension());
    expect(await resolve({ resolver, applier: new FakeApplier() }).run(state, signal)).toEqual({ err });
    expect(cond(state.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: 'no bundles found for package "demo"' });
    expect(cond(state.ext, 'Installed')?.status).toBe('False');
    expect(cond(state.ext, 'Deprecated')).toEqual({ status: 'Unknown', reason: 'DeprecationStatusUnknown', message: 'deprecation status unknown: catalog data unavailable' });
  });

  it('installed, but its catalogs are gone: keeps the installed bundle healthy (maintain) and ends the pass quietly', async () => {
    const resolver = new FakeResolver(resolution('1.0.0'));
    resolver.resolveAnswer = { error: new Error('no catalogs') };
    resolver.catalogs = false;
    const applier = new FakeApplier();
    const state = stateFor(extension());
    state.installed = installedBundle('1.0.0');
    expect(await resolve({ resolver, applier }).run(state, signal)).toEqual({});
    expect(applier.calls).toEqual(['maintain demo.v1.0.0']);
    expect(cond(state.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Desired state reached' });
    expect(cond(state.ext, 'Available')?.status).toBe('True');
  });

  it('installed, catalogs gone, objects not ready: waits and looks again soon', async () => {
    const resolver = new FakeResolver(resolution('1.0.0'));
    resolver.resolveAnswer = { error: new Error('no catalogs') };
    resolver.catalogs = false;
    const applier = new FakeApplier();
    applier.maintainAnswer = { value: { installed: false, message: 'Deployment demo-ns/op: 0/1 ready' } };
    const state = stateFor(extension());
    state.installed = installedBundle('1.0.0');
    expect(await resolve({ resolver, applier }).run(state, signal)).toEqual({ result: { requeueAfterMs: NOT_READY_RECHECK_MS } });
    expect(cond(state.ext, 'Progressing')?.message).toBe('Deployment demo-ns/op: 0/1 ready');
  });

  it('installed, but another version is asked for (or catalogs exist, or that cannot be told): the resolution error stands', async () => {
    for (const [version, catalogs] of [
      ['2.0.0', false],
      ['', true],
      // upstream's CheckCatalogsExist fails for an invalid selector: retried, not a fallback to the installed bundle
      ['', new Error('invalid catalog selector: "in" is not a valid label selector operator')],
    ] as const) {
      const resolver = new FakeResolver(resolution('1.0.0'));
      const err = new Error('no bundles found');
      resolver.resolveAnswer = { error: err };
      resolver.catalogs = catalogs;
      const applier = new FakeApplier();
      const state = stateFor(extension({ version }));
      state.installed = installedBundle('1.0.0');
      expect(await resolve({ resolver, applier }).run(state, signal)).toEqual({ err });
      expect(applier.calls).toEqual([]);
      expect(cond(state.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: 'no bundles found' });
    }
  });
});

describe('unpack, render, preflights: failures name the resolved bundle', () => {
  const resolvedState = (installed?: string) => {
    const state = stateFor(extension({ config: { watchNamespace: 'w' } }));
    state.resolution = resolution('2.0.0');
    if (installed) state.installed = installedBundle(installed);
    return state;
  };

  it('unpack puts the directory in the state', async () => {
    const unpacker = new FakeUnpacker();
    const state = resolvedState();
    expect(await unpack({ unpacker }).run(state, signal)).toBeUndefined();
    expect(unpacker.images).toEqual(['registry.example/demo-bundle:v2.0.0']);
    expect(state.dir).toBe('/bundles/unpacked');
  });

  it('an unpack failure on a first install: wrapped text, retried, InstallFailed event', async () => {
    const unpacker = new FakeUnpacker();
    unpacker.unpackAnswer = { error: new Error('manifest unknown') };
    const events = new FakeEvents();
    const state = resolvedState();
    const out = await unpack({ unpacker, events }).run(state, signal);
    const text = 'error for resolved bundle "demo.v2.0.0" with version "2.0.0": manifest unknown';
    expect((out?.err as Error).message).toBe(text);
    expect(isTerminal(out?.err)).toBe(false);
    expect(events.events).toEqual([{ type: 'Warning', reason: 'InstallFailed', message: text }]);
  });

  it('render passes the namespace and inline config and keeps the objects', async () => {
    const renderer = new FakeRenderer();
    const state = resolvedState();
    state.dir = '/bundles/x';
    expect(await render({ renderer }).run(state, signal)).toBeUndefined();
    expect(renderer.requests).toEqual([{ dir: '/bundles/x', request: { installNamespace: 'demo-ns', config: { watchNamespace: 'w' } } }]);
    expect(state.objects).toHaveLength(1);
    expect(state.bundleProperties).toBeUndefined();
  });

  it('the bundle’s properties from render go to the applier with the bundle (recorded on the revision)', async () => {
    const renderer = new FakeRenderer();
    const props = '[{"type":"olm.maxOpenShiftVersion","value":"4.22"}]';
    renderer.renderAnswer = { value: { objects: [], properties: props } };
    const state = resolvedState();
    state.dir = '/bundles/x';
    await render({ renderer }).run(state, signal);
    const applier = new FakeApplier();
    await apply({ applier }).run(state, signal);
    expect(applier.applied.map((a) => a.bundle)).toEqual([{ ...bundle('2.0.0'), properties: props }]);
  });

  it('a terminal render error stays terminal (Blocked) on an upgrade, with an UpgradeFailed event', async () => {
    const renderer = new FakeRenderer();
    renderer.renderAnswer = { error: new TerminalError('Blocked', 'unsupported bundle: webhooks need a certificate provider') };
    const events = new FakeEvents();
    const state = resolvedState('1.0.0');
    state.dir = '/bundles/x';
    const out = await render({ renderer, events }).run(state, signal);
    expect(isTerminal(out?.err)).toBe(true);
    expect(cond(state.ext, 'Progressing')).toEqual({
      status: 'False',
      reason: 'Blocked',
      message: 'error for resolved bundle "demo.v2.0.0" with version "2.0.0": unsupported bundle: webhooks need a certificate provider',
    });
    expect(events.events.map((e) => e.reason)).toEqual(['UpgradeFailed']);
  });

  it('preflights run in order on the rendered objects; the first refusal ends the pass, no event when nothing changes', async () => {
    const first = new FakePreflight();
    const second = new FakePreflight();
    second.checkAnswer = { error: new Error('pre-authorization failed: missing rules') };
    const third = new FakePreflight();
    const events = new FakeEvents();
    const state = resolvedState('2.0.0');
    state.objects = [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }];
    const out = await preflights({ preflights: [first, second, third], events }).run(state, signal);
    expect((out?.err as Error).message).toBe('error for resolved bundle "demo.v2.0.0" with version "2.0.0": pre-authorization failed: missing rules');
    expect([first.checked.length, second.checked.length, third.checked.length]).toEqual([1, 1, 0]);
    expect(first.checked[0]).toBe(state.objects);
    expect(events.events).toEqual([]);
  });
});

describe('apply and reportInstalled', () => {
  const readyState = (installed?: string) => {
    const state = stateFor(extension());
    state.resolution = resolution('2.0.0');
    state.objects = [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }];
    if (installed) state.installed = installedBundle(installed);
    return state;
  };

  it('applies the resolved bundle’s objects and sets Available', async () => {
    const applier = new FakeApplier();
    const state = readyState();
    expect(await apply({ applier }).run(state, signal)).toBeUndefined();
    expect(applier.applied).toEqual([{ bundle: bundle('2.0.0'), objects: state.objects }]);
    expect(cond(state.ext, 'Available')).toEqual({ status: 'True', reason: 'Available', message: 'every object of the installed bundle is healthy' });
  });

  it('objects not ready yet: Available False with why, Progressing says the same, looks again soon', async () => {
    const applier = new FakeApplier();
    applier.applyAnswer = { value: { installed: false, message: 'CRD greetings.demo.olm.dev: not Established yet' } };
    const state = readyState();
    expect(await apply({ applier }).run(state, signal)).toEqual({ result: { requeueAfterMs: NOT_READY_RECHECK_MS } });
    expect(cond(state.ext, 'Available')?.status).toBe('False');
    expect(cond(state.ext, 'Progressing')?.message).toBe('CRD greetings.demo.olm.dev: not Established yet');
  });

  it('reports a first install: status.install, Progressing Succeeded, an Installed event', async () => {
    const events = new FakeEvents();
    const state = readyState();
    expect(await reportInstalled({ events }).run(state, signal)).toBeUndefined();
    expect(state.ext.status?.install).toEqual({ bundle: { name: 'demo.v2.0.0', version: '2.0.0' } });
    expect(cond(state.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Desired state reached' });
    expect(events.events).toEqual([{ type: 'Normal', reason: 'Installed', message: 'Installed bundle demo.v2.0.0 (version 2.0.0)' }]);
  });

  it('reports an upgrade with an Upgraded event, and nothing when the same bundle stays', async () => {
    const upgraded = new FakeEvents();
    await reportInstalled({ events: upgraded }).run(readyState('1.0.0'), signal);
    expect(upgraded.events).toEqual([{ type: 'Normal', reason: 'Upgraded', message: 'Moved from bundle demo.v1.0.0 (version 1.0.0) to demo.v2.0.0 (version 2.0.0)' }]);
    const same = new FakeEvents();
    await reportInstalled({ events: same }).run(readyState('2.0.0'), signal);
    expect(same.events).toEqual([]);
  });

  it('carries the bundle’s release into status.install when resolution has one', async () => {
    const state = readyState();
    state.resolution = { ...resolution('2.0.0'), bundle: { ...bundle('2.0.0'), release: '3' } };
    await reportInstalled({}).run(state, signal);
    expect(state.ext.status?.install).toEqual({ bundle: { name: 'demo.v2.0.0', version: '2.0.0', release: '3' } });
  });
});
