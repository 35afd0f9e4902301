// The BoxcutterRuntime pipeline's resolution step over typed fakes: when resolution fails with a revision installed,
// whether the installed bundle is kept (catalogs gone) or the failure is retried (catalogs exist, another version is
// asked for, or catalog existence cannot be told).
import { describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { FakeResolver, bundle, extension, stateFor } from './fakes.ts';
import { resolveRevision } from './objectset-steps.ts';
import type { Resolution } from './ports.ts';

const signal = new AbortController().signal;
const resolution = (version: string): Resolution => ({ bundle: bundle(version), catalog: 'demo-catalog', deprecations: [] });
const progressing = (ext: ClusterExtension) => {
  const c = ext.status?.conditions?.find((x) => x.type === 'Progressing');
  return c && { status: c.status, reason: c.reason, message: c.message };
};

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
