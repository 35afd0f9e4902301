// The BoxcutterRuntime steps over typed fakes: which bundle is rolled out, what is mirrored from the revisions into
// the extension's status, and how failures read.
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { FakeEvents, FakeFinalizers, FakeObjectSets, FakePreflight, FakeRenderer, FakeResolver, FakeUnpacker, bundle, extension, stateFor } from './testing.ts';
import { applyObjectSet, clusterExtensionObjectSetSteps, keepInstalledWhenUnpackFails, readRevisionStates, resolveRevision } from './objectset-steps.ts';
import type { Resolution, RevisionMetadata } from './ports.ts';
import { unpack } from './steps.ts';

const signal = new AbortController().signal;
const cond = (c: { status?: { conditions?: Condition[] } } | undefined, type: string): Pick<Condition, 'status' | 'reason' | 'message'> | undefined => {
  const x = c?.status?.conditions?.find((y) => y.type === type);
  return x && { status: x.status, reason: x.reason, message: x.message };
};
const resolution = (version: string): Resolution => ({ bundle: bundle(version), catalog: 'demo-catalog', deprecations: [] });
const condition = (type: string, status: Condition['status'], reason: string, message: string, at = '2026-11-27T10:00:00Z'): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at,
  observedGeneration: 1,
});
const revision = (n: number, version: string, conditions: Condition[] = []): RevisionMetadata => ({ name: `demo-${n}`, bundle: bundle(version), conditions });

describe('the BoxcutterRuntime step list', () => {
  it('is upstream’s order', () => {
    const steps = clusterExtensionObjectSetSteps({
      finalizers: new FakeFinalizers(),
      resolver: new FakeResolver(resolution('1.0.0')),
      unpacker: new FakeUnpacker(),
      renderer: new FakeRenderer(),
      preflights: [new FakePreflight()],
      objectSets: new FakeObjectSets(),
    });
    expect(steps.map((s) => s.name)).toEqual([
      'handleDeletion',
      'ensureFinalizer',
      'validate',
      'migrateStorage',
      'readRevisionStates',
      'resolveRevision',
      'unpack',
      'render',
      'applyObjectSet',
    ]);
  });
});

describe('resolveRevision', () => {
  it('rolls out the oldest revision still rolling out, without resolving', async () => {
    const resolver = new FakeResolver(resolution('2.0.0'));
    const state = stateFor(extension());
    state.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [revision(2, '1.1.0'), revision(3, '1.2.0')] };
    expect(await resolveRevision({ resolver }).run(state, signal)).toBeUndefined();
    expect(resolver.calls).toEqual([]);
    expect(state.resolution?.bundle.version).toBe('1.1.0');
    expect(cond(state.ext, 'BundleDeprecated')).toEqual({ status: 'Unknown', reason: 'DeprecationStatusUnknown', message: 'deprecation status unknown: catalog data unavailable' });
  });

  it('resolves against the installed revision otherwise', async () => {
    const resolver = new FakeResolver(resolution('2.0.0'));
    const state = stateFor(extension());
    state.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [] };
    await resolveRevision({ resolver }).run(state, signal);
    expect(resolver.calls[0]?.installed?.version).toBe('1.0.0');
    expect(state.resolution?.bundle.version).toBe('2.0.0');
  });

  it('keeps the installed bundle when no catalog matches and no other version is asked for; retries otherwise', async () => {
    const resolver = new FakeResolver(resolution('2.0.0'));
    resolver.resolveAnswer = { error: new Error('no bundles found for package "demo"') };
    resolver.catalogs = false;
    const state = stateFor(extension());
    state.revisionStates = { installed: revision(1, '1.0.0', [condition('Succeeded', 'True', 'Succeeded', '')]), rollingOut: [] };
    expect(await resolveRevision({ resolver }).run(state, signal)).toBeUndefined();
    expect(state.resolution?.bundle.version).toBe('1.0.0');

    resolver.catalogs = true;
    const again = stateFor(extension());
    again.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [] };
    expect((await resolveRevision({ resolver }).run(again, signal))?.err).toBeDefined();
    expect(cond(again.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: 'no bundles found for package "demo"' });
    expect(cond(again.ext, 'Installed')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Installed bundle registry.example/demo-bundle:v1.0.0 successfully' });
  });
});

describe('applyObjectSet', () => {
  it('writes the revision and mirrors the installed and rolling-out revisions into status', async () => {
    const objectSets = new FakeObjectSets();
    const ext = extension();
    const state = stateFor(ext);
    state.resolution = resolution('1.1.0');
    state.objects = [];
    state.bundleProperties = '[]';
    state.revisionStates = {
      installed: revision(1, '1.0.0', [
        condition('Available', 'True', 'ProbesSucceeded', 'Objects are available and pass all probes.'),
        condition('Progressing', 'True', 'Succeeded', 'Revision 1.0.0 has rolled out.'),
        condition('Succeeded', 'True', 'Succeeded', 'Revision succeeded rolling out.'),
      ]),
      rollingOut: [revision(2, '1.1.0', [condition('Available', 'False', 'ProbeFailure', 'Object Deployment.apps/v1 ns/d: .status.condition["Available"] is False'), condition('Progressing', 'True', 'RollingOut', 'Revision 1.1.0 is rolling out.', '2026-11-27T10:05:00Z')])],
    };
    expect(await applyObjectSet({ objectSets }).run(state, signal)).toBeUndefined();
    expect(objectSets.applied[0]?.bundle).toEqual({ ...bundle('1.1.0'), properties: '[]' });
    const status = (ext as ClusterExtension).status!;
    expect(status.activeRevisions).toEqual([
      { name: 'demo-1' },
      {
        name: 'demo-2',
        conditions: [
          { ...condition('Available', 'False', 'ProbeFailure', 'Object Deployment.apps/v1 ns/d: .status.condition["Available"] is False'), observedGeneration: 3 },
          { ...condition('Progressing', 'True', 'RollingOut', 'Revision 1.1.0 is rolling out.', '2026-11-27T10:05:00Z'), observedGeneration: 3 },
        ],
      },
    ]);
    expect(cond(ext, 'Available')).toEqual({ status: 'True', reason: 'ProbesSucceeded', message: 'Objects are available and pass all probes.' });
    // The newest revision's Progressing wins; the status did not change (True → True), so the transition time stays.
    expect(status.conditions?.find((c) => c.type === 'Progressing')).toEqual({ ...condition('Progressing', 'True', 'RollingOut', 'Revision 1.1.0 is rolling out.'), observedGeneration: 3 });
    expect(status.install).toEqual({ bundle: { name: 'demo.v1.0.0', version: '1.0.0' } });
    expect(cond(ext, 'Installed')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Installed bundle registry.example/demo-bundle:v1.0.0 successfully' });
  });

  it('tells of a first install and of an upgrade with an Event, once', async () => {
    const events = new FakeEvents();
    const ext = extension();
    const state = stateFor(ext);
    state.resolution = resolution('1.0.0');
    state.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [] };
    await applyObjectSet({ objectSets: new FakeObjectSets(), events }).run(state, signal);
    const again = stateFor(ext);
    again.resolution = resolution('1.0.0');
    again.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [] };
    await applyObjectSet({ objectSets: new FakeObjectSets(), events }).run(again, signal);
    const upgraded = stateFor(ext);
    upgraded.resolution = resolution('1.1.0');
    upgraded.revisionStates = { installed: revision(2, '1.1.0'), rollingOut: [] };
    await applyObjectSet({ objectSets: new FakeObjectSets(), events }).run(upgraded, signal);
    expect(events.events).toEqual([
      { type: 'Normal', reason: 'Installed', message: 'Installed bundle demo.v1.0.0 (version 1.0.0)' },
      { type: 'Normal', reason: 'Upgraded', message: 'Moved from bundle demo.v1.0.0 (version 1.0.0) to demo.v1.1.0 (version 1.1.0)' },
    ]);
  });

  it('reports nothing installed as Absent while the first revision rolls out healthily, Failed while it retries', async () => {
    for (const [reason, want] of [
      ['RollingOut', 'Absent'],
      ['Retrying', 'Failed'],
    ] as const) {
      const ext = extension();
      const state = stateFor(ext);
      state.resolution = resolution('1.0.0');
      state.revisionStates = { rollingOut: [revision(1, '1.0.0', [condition('Progressing', 'True', reason, 'x')])] };
      await applyObjectSet({ objectSets: new FakeObjectSets() }).run(state, signal);
      expect(cond(ext, 'Installed')).toEqual({ status: 'False', reason: want, message: 'No bundle installed' });
      expect(ext.status?.install).toBeUndefined();
    }
  });

  it('runs the preflights only when a new revision is made, and a refusal stops it', async () => {
    const preflight = new FakePreflight();
    preflight.checkAnswer = { error: new Error('validating upgrade for CRD "w": removed field') };
    const objectSets = new FakeObjectSets();
    objectSets.newRevision = false;
    const unchanged = stateFor(extension());
    unchanged.resolution = resolution('1.0.0');
    unchanged.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [] };
    expect(await applyObjectSet({ objectSets, preflights: [preflight] }).run(unchanged, signal)).toBeUndefined();
    expect(preflight.checked).toHaveLength(0);
    objectSets.newRevision = true;
    const upgrade = stateFor(extension());
    upgrade.resolution = resolution('1.1.0');
    upgrade.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [] };
    expect((await applyObjectSet({ objectSets, preflights: [preflight] }).run(upgrade, signal))?.err).toBeDefined();
    expect(preflight.checked).toHaveLength(1);
    expect(cond(upgrade.ext, 'Progressing')).toEqual({
      status: 'True',
      reason: 'Retrying',
      message: 'error for resolved bundle "demo.v1.1.0" with version "1.1.0": validating upgrade for CRD "w": removed field',
    });
  });

  it('wraps a failure with the resolved bundle, as upstream', async () => {
    const objectSets = new FakeObjectSets();
    objectSets.applyAnswer = { error: new Error('creating new Revision: boom') };
    const events = new FakeEvents();
    const state = stateFor(extension());
    state.resolution = resolution('1.0.0');
    state.revisionStates = { rollingOut: [] };
    expect((await applyObjectSet({ objectSets, events }).run(state, signal))?.err).toBeDefined();
    expect(cond(state.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: 'error for resolved bundle "demo.v1.0.0" with version "1.0.0": creating new Revision: boom' });
    expect(cond(state.ext, 'Installed')).toEqual({ status: 'False', reason: 'Failed', message: 'No bundle installed' });
  });
});

describe('readRevisionStates and unpack', () => {
  it('reads the revisions; an error reads as upstream', async () => {
    const objectSets = new FakeObjectSets();
    objectSets.statesAnswer = { error: new Error('listing revisions: forbidden') };
    const state = stateFor(extension());
    expect((await readRevisionStates({ objectSets }).run(state, signal))?.err).toBeDefined();
    expect(cond(state.ext, 'Installed')).toEqual({ status: 'Unknown', reason: 'Failed', message: 'listing revisions: forbidden' });
    expect(cond(state.ext, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: 'retrying to get installed bundle' });
  });

  it('keeps the installed revision when its own bundle image cannot be pulled', async () => {
    const unpacker = new FakeUnpacker();
    unpacker.unpackAnswer = { error: new Error('pull failed') };
    const state = stateFor(extension());
    state.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [] };
    state.resolution = resolution('1.0.0');
    expect(await keepInstalledWhenUnpackFails(unpack({ unpacker })).run(state, signal)).toBeUndefined();
    expect(state.keepInstalled).toBe(true);
    const other = stateFor(extension());
    other.revisionStates = { installed: revision(1, '1.0.0'), rollingOut: [] };
    other.resolution = resolution('1.1.0');
    expect((await keepInstalledWhenUnpackFails(unpack({ unpacker })).run(other, signal))?.err).toBeDefined();
  });
});

const progressing = (ext: ClusterExtension): Pick<Condition, 'status' | 'reason' | 'message'> | undefined => cond(ext, 'Progressing');

describe('resolveRevision after a failed resolution with a revision installed', () => {
  const installedState = (version = '') => {
    const state = stateFor(extension({ version }));
    state.revisionStates = { installed: { name: 'demo-1', bundle: bundle('1.0.0'), conditions: [] }, rollingOut: [] };
    return state;
  };

  it('keeps the installed bundle when no catalog matches', async () => {
    const resolver = new FakeResolver(resolution('1.0.0'));
    resolver.resolveAnswer = { error: new Error('no catalogs') };
    resolver.catalogs = false;
    const state = installedState();
    expect(await resolveRevision({ resolver }).run(state, signal)).toBeUndefined();
    expect(state.resolution?.bundle.name).toBe(bundle('1.0.0').name);
  });

  it.each([
    { name: 'catalogs exist', version: '', catalogs: true },
    { name: 'another version is asked for', version: '2.0.0', catalogs: false },
    { name: 'the selector is invalid, so catalog existence cannot be told', version: '', catalogs: new Error('invalid catalog selector: x') },
  ])('retries with the resolution error when $name', async ({ version, catalogs }) => {
    const resolver = new FakeResolver(resolution('1.0.0'));
    const err = new Error('no bundles found');
    resolver.resolveAnswer = { error: err };
    resolver.catalogs = catalogs;
    const state = installedState(version);
    expect(await resolveRevision({ resolver }).run(state, signal)).toEqual({ err });
    expect(state.resolution).toBeUndefined();
    expect(progressing(state.ext)).toEqual({ status: 'True', reason: 'Retrying', message: 'no bundles found' });
  });
});
