import { describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { TerminalError } from '../../shared/controller/index.ts';
import {
  ensureFailureConditions,
  setAvailable,
  setDeprecationConditions,
  setInstalledFromBundle,
  setInstalledFromRevisions,
  setInstalledUnknown,
  setProgressing,
  wrapWithResolution,
  type DeprecationEntryInfo,
} from './status.ts';

const NOW = new Date('2026-11-22T10:00:00Z');

function ext(channels?: string[]): ClusterExtension {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'ext', generation: 3 },
    spec: {
      namespace: 'ns',
      source: { sourceType: 'Catalog', catalog: { packageName: 'foo', ...(channels && { channels }) } },
    },
  };
}

const brief = (e: ClusterExtension): Record<string, [string, string, string]> =>
  Object.fromEntries((e.status?.conditions ?? []).map((c) => [c.type, [c.status, c.reason, c.message]]));

describe('Progressing', () => {
  it('is True/Succeeded "Desired state reached" without an error', () => {
    const e = ext();
    setProgressing(e, undefined, NOW);
    expect(e.status?.conditions).toEqual([
      { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'Desired state reached', observedGeneration: 3, lastTransitionTime: '2026-11-22T10:00:00Z' },
    ]);
  });
  it('is True/Retrying with network addresses stripped for a retryable error', () => {
    const e = ext();
    setProgressing(e, new Error('Get "https://x/api": read tcp 10.0.0.1:3333->10.0.0.2:443: connection reset by peer'), NOW);
    expect(brief(e).Progressing).toEqual(['True', 'Retrying', 'Get "https://x/api": connection reset by peer']);
  });
  it('is False with the terminal error’s reason', () => {
    const e = ext();
    setProgressing(e, new TerminalError('Blocked', 'unsupported bundle'), NOW);
    expect(brief(e).Progressing).toEqual(['False', 'Blocked', 'unsupported bundle']);
    setProgressing(e, new TerminalError('InvalidConfiguration', 'invalid watchNamespace'), NOW);
    expect(brief(e).Progressing).toEqual(['False', 'InvalidConfiguration', 'invalid watchNamespace']);
  });
});

describe('Installed', () => {
  it('reports the installed bundle and its image, and sets status.install', () => {
    const e = ext();
    setInstalledFromBundle(e, { name: 'foo.v1.0.0', version: '1.0.0', image: 'quay.io/x/foo@sha256:abc' }, NOW);
    expect(brief(e).Installed).toEqual(['True', 'Succeeded', 'Installed bundle quay.io/x/foo@sha256:abc successfully']);
    expect(e.status?.install).toEqual({ bundle: { name: 'foo.v1.0.0', version: '1.0.0' } });
  });
  it('carries the bundle release when the install has one (BundleReleaseSupport), an explicit empty one included', () => {
    const e = ext();
    setInstalledFromBundle(e, { name: 'foo.v1.0.0', version: '1.0.0', release: '2', image: 'i' }, NOW);
    expect(e.status?.install).toEqual({ bundle: { name: 'foo.v1.0.0', version: '1.0.0', release: '2' } });
    setInstalledFromBundle(e, { name: 'foo.v1.0.0', version: '1.0.0', release: '', image: 'i' }, NOW);
    expect(e.status?.install).toEqual({ bundle: { name: 'foo.v1.0.0', version: '1.0.0', release: '' } });
    setInstalledFromBundle(e, { name: 'foo.v1.0.0', version: '1.0.0', image: 'i' }, NOW);
    expect(e.status?.install).toEqual({ bundle: { name: 'foo.v1.0.0', version: '1.0.0' } });
  });
  it('is False/Failed "No bundle installed" when nothing is installed, and clears status.install', () => {
    const e = ext();
    setInstalledFromBundle(e, { name: 'a', version: '1.0.0', image: 'i' }, NOW);
    setInstalledFromBundle(e, undefined, NOW);
    expect(brief(e).Installed).toEqual(['False', 'Failed', 'No bundle installed']);
    expect(e.status?.install).toBeUndefined();
  });
  it('is Unknown/Failed with the reason when the state cannot be read', () => {
    const e = ext();
    setInstalledUnknown(e, 'service account "sa" not found', NOW);
    expect(brief(e).Installed).toEqual(['Unknown', 'Failed', 'service account "sa" not found']);
  });
});

describe('Available (beyond upstream)', () => {
  it('is True/Available when every object is healthy, False/Unavailable with the probe lines otherwise', () => {
    const e = ext();
    setAvailable(e, { installed: true }, NOW);
    expect(brief(e).Available).toEqual(['True', 'Available', 'every object of the installed bundle is healthy']);
    const line = 'Object Deployment.apps/v1 ns/foo: condition "Available" is "False", not "True"';
    setAvailable(e, { installed: false, message: line }, NOW);
    expect(brief(e).Available).toEqual(['False', 'Unavailable', line]);
    expect(e.status?.conditions?.find((c) => c.type === 'Available')?.observedGeneration).toBe(3);
  });
});

describe('ensureFailureConditions', () => {
  it('fills only missing non-deprecation conditions', () => {
    const e = ext();
    setProgressing(e, new Error('boom'), NOW);
    ensureFailureConditions(e, 'Failed', 'boom', ['Installed', 'Progressing', 'Deprecated', 'BundleDeprecated'], NOW);
    expect(brief(e)).toEqual({ Progressing: ['True', 'Retrying', 'boom'], Installed: ['False', 'Failed', 'boom'] });
  });
});

describe('deprecation conditions', () => {
  const entries: DeprecationEntryInfo[] = [
    { reference: { schema: 'olm.package' }, message: 'package foo is end of life' },
    { reference: { schema: 'olm.channel', name: 'alpha' }, message: 'alpha is deprecated' },
    { reference: { schema: 'olm.channel', name: 'beta' }, message: 'beta is deprecated' },
    { reference: { schema: 'olm.bundle', name: 'foo.v1.0.0' }, message: 'foo.v1.0.0 has a CVE' },
    { reference: { schema: 'olm.bundle', name: 'foo.v2.0.0' }, message: '' },
  ];

  it('without catalog data: all Unknown, BundleDeprecated Absent when nothing is installed', () => {
    const e = ext();
    setDeprecationConditions(e, { hasCatalogData: false }, NOW);
    const unknown = ['Unknown', 'DeprecationStatusUnknown', 'deprecation status unknown: catalog data unavailable'];
    expect(brief(e)).toEqual({
      Deprecated: unknown,
      PackageDeprecated: unknown,
      ChannelDeprecated: unknown,
      BundleDeprecated: ['Unknown', 'Absent', 'no bundle installed yet'],
    });
    setDeprecationConditions(e, { hasCatalogData: false, installedBundleName: 'foo.v1.0.0' }, NOW);
    expect(brief(e).BundleDeprecated).toEqual(unknown);
  });

  it('nothing deprecated: False/NotDeprecated with upstream’s messages', () => {
    const e = ext();
    setDeprecationConditions(e, { hasCatalogData: true, installedBundleName: 'foo.v3.0.0', entries: [] }, NOW);
    expect(brief(e)).toEqual({
      Deprecated: ['False', 'NotDeprecated', 'not deprecated'],
      PackageDeprecated: ['False', 'NotDeprecated', 'package not deprecated'],
      ChannelDeprecated: ['False', 'NotDeprecated', 'channel not deprecated'],
      BundleDeprecated: ['False', 'NotDeprecated', 'bundle not deprecated'],
    });
  });

  it('no channels named: every channel entry counts; only the installed bundle’s entry counts', () => {
    const e = ext();
    setDeprecationConditions(e, { hasCatalogData: true, installedBundleName: 'foo.v1.0.0', entries }, NOW);
    expect(brief(e)).toEqual({
      Deprecated: ['True', 'Deprecated', 'package foo is end of life\nalpha is deprecated\nbeta is deprecated\nfoo.v1.0.0 has a CVE'],
      PackageDeprecated: ['True', 'Deprecated', 'package foo is end of life'],
      ChannelDeprecated: ['True', 'Deprecated', 'alpha is deprecated\nbeta is deprecated'],
      BundleDeprecated: ['True', 'Deprecated', 'foo.v1.0.0 has a CVE'],
    });
  });

  it('named channels filter channel entries; empty messages are dropped; nothing installed is Absent', () => {
    const e = ext(['beta', 'stable']);
    setDeprecationConditions(e, { hasCatalogData: true, entries: entries.slice(1) }, NOW);
    expect(brief(e)).toEqual({
      Deprecated: ['True', 'Deprecated', 'beta is deprecated'],
      PackageDeprecated: ['False', 'NotDeprecated', 'package not deprecated'],
      ChannelDeprecated: ['True', 'Deprecated', 'beta is deprecated'],
      BundleDeprecated: ['Unknown', 'Absent', 'no bundle installed yet'],
    });
    const e2 = ext();
    setDeprecationConditions(e2, { hasCatalogData: true, installedBundleName: 'foo.v2.0.0', entries: entries.slice(4) }, NOW);
    expect(brief(e2).BundleDeprecated).toEqual(['False', 'NotDeprecated', 'bundle not deprecated']);
  });

  it('keeps lastTransitionTime when nothing changes', () => {
    const e = ext();
    setDeprecationConditions(e, { hasCatalogData: true, entries: [] }, NOW);
    setDeprecationConditions(e, { hasCatalogData: true, entries: [] }, new Date('2026-11-23T00:00:00Z'));
    expect(new Set(e.status?.conditions?.map((c) => c.lastTransitionTime))).toEqual(new Set(['2026-11-22T10:00:00Z']));
  });
});

it('wraps pull and apply failures with the resolved bundle as upstream does', () => {
  expect(wrapWithResolution({ name: 'foo.v1.0.0', version: '1.0.0' }, new Error('manifest unknown'))).toBe(
    'error for resolved bundle "foo.v1.0.0" with version "1.0.0": manifest unknown',
  );
});

describe('Installed from revisions (BoxcutterRuntime; upstream ee4bab55)', () => {
  const bundle = { name: 'foo.v1.0.0', version: '1.0.0', image: 'quay.io/foo@sha256:1' };
  const rev = (name: string, reason?: string) => ({
    name,
    bundle,
    conditions: reason ? [{ type: 'Progressing', status: 'True' as const, reason, message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] : [],
  });

  it('nothing installed: Failed without revisions or when the newest one retries an error, Absent while it rolls out', () => {
    for (const [rollingOut, reason] of [
      [[], 'Failed'],
      [[rev('ext-1', 'RollingOut'), rev('ext-2', 'Retrying')], 'Failed'],
      [[rev('ext-1', 'Retrying'), rev('ext-2', 'RollingOut')], 'Absent'],
      [[rev('ext-1')], 'Absent'],
    ] as const) {
      const e = ext();
      setInstalledFromRevisions(e, { rollingOut }, NOW);
      expect(brief(e).Installed).toEqual(['False', reason, 'No bundle installed']);
      expect(e.status?.install).toBeUndefined();
    }
  });

  it('installed: Succeeded with the installed revision’s image, and status.install', () => {
    const e = ext();
    setInstalledFromRevisions(e, { installed: rev('ext-1'), rollingOut: [rev('ext-2', 'Retrying')] }, NOW);
    expect(brief(e).Installed).toEqual(['True', 'Succeeded', 'Installed bundle quay.io/foo@sha256:1 successfully']);
    expect(e.status?.install?.bundle).toEqual({ name: 'foo.v1.0.0', version: '1.0.0' });
  });
});
