// Classic OLM's ClusterOperator status, pass by pass, as upstream's envtest suite (clusteroperator_controller_test.go,
// cluster version 1.0.0+cluster) and helpers_test.go expect it.
import { describe, expect, it } from 'vitest';
import { classicRelatedObjects, classicSkews, classicStatus, classicVerdict, type ClassicStatusInput, type CsvInfo } from './classic.ts';
import type { ClusterOperatorStatus } from './clusteroperator.ts';
import { parseTolerant } from '../shared/semver/index.ts';
import { nextMinor } from './version.ts';

const CLUSTER = '1.0.0+cluster';
const HEADER = 'ClusterServiceVersions blocking minor version upgrades to 4.23 or major version upgrades to 5.0:';
/** projection.PropertiesAnnotationFromPropertyList of max values (each raw JSON text, as OLM keeps it). */
const withMax = (...values: string[]): Record<string, string> => ({
  'operatorframework.io/properties': `{"properties":[${values.map((v) => `{"type":"olm.maxOpenShiftVersion","value":${v}}`).join(',')}]}`,
});
const csv = (namespace: string, name: string, annotations?: Record<string, string>, labels?: Record<string, string>): CsvInfo => ({
  namespace,
  name,
  ...(annotations && { annotations }),
  ...(labels && { labels }),
});

const targets = [
  { name: 'operator', version: CLUSTER },
  { name: 'operator-lifecycle-manager', version: '0.1.0' },
];
const input = (over: Partial<ClassicStatusInput> & { csvs?: readonly CsvInfo[]; release?: string | undefined } = {}): ClassicStatusInput => {
  const csvs = over.csvs ?? [];
  return {
    name: 'operator-lifecycle-manager',
    synced: true,
    targetVersions: targets,
    olmVersion: '0.1.0',
    related: classicRelatedObjects(csvs, 'olm'),
    verdict: () => classicVerdict('release' in over ? over.release : CLUSTER, csvs),
    now: '2026-01-01T00:00:00Z',
    ...over,
  };
};
const upgradeable = (s: ClusterOperatorStatus) => s.conditions?.find((c) => c.type === 'Upgradeable');

describe('classic ClusterOperator status', () => {
  it('before OLM has synced: Upgradeable False waiting for updates; Progressing, Available, Degraded say so; no versions', () => {
    const { status } = classicStatus(undefined, input({ synced: false }));
    expect(status.versions).toBeUndefined();
    expect(status.conditions).toEqual([
      { type: 'Progressing', status: 'True', message: 'Waiting to see update 0.1.0 succeed', lastTransitionTime: '2026-01-01T00:00:00Z' },
      { type: 'Available', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' },
      { type: 'Degraded', status: 'True', message: 'Waiting for updates to take effect', lastTransitionTime: '2026-01-01T00:00:00Z' },
      { type: 'Upgradeable', status: 'False', message: 'Waiting for updates to take effect', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ]);
  });

  it('after it synced: versions set, Deployed, Available, not Degraded, Upgradeable True; relatedObjects are the OLM namespace’s own CSVs', () => {
    const before = classicStatus(undefined, input({ synced: false })).status;
    const csvs = [csv('olm', 'packageserver'), csv('olm', 'copy', undefined, { 'olm.copiedFrom': 'elsewhere' }), csv('other', 'x')];
    const { status } = classicStatus(before, input({ csvs, now: '2026-01-01T00:01:00Z' }));
    expect(status.versions).toEqual(targets);
    expect(status.relatedObjects).toEqual([{ group: 'operators.coreos.com', resource: 'clusterserviceversions', namespace: 'olm', name: 'packageserver' }]);
    expect(status.conditions).toEqual([
      { type: 'Progressing', status: 'False', message: 'Deployed 0.1.0', lastTransitionTime: '2026-01-01T00:01:00Z' },
      { type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:01:00Z' },
      { type: 'Degraded', status: 'False', lastTransitionTime: '2026-01-01T00:01:00Z' },
      { type: 'Upgradeable', status: 'True', lastTransitionTime: '2026-01-01T00:01:00Z' },
    ]);
    // Nothing changes: the same status, transition times kept.
    expect(classicStatus(status, input({ csvs, now: '2026-01-01T00:02:00Z' })).status).toEqual(status);
  });

  it('RELEASE_VERSION missing: ErrorCheckingOperatorCompatibility with upstream’s message', () => {
    const { status } = classicStatus(undefined, input({ release: undefined }));
    expect(upgradeable(status)).toEqual({
      type: 'Upgradeable',
      status: 'False',
      reason: 'ErrorCheckingOperatorCompatibility',
      message: 'Encountered errors while checking compatibility with the next minor version of OpenShift: desired release version missing from RELEASE_VERSION env variable',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    expect(upgradeable(classicStatus(undefined, input({ release: 'not a version' })).status)?.message).toMatch(
      /^Encountered errors while checking compatibility with the next minor version of OpenShift: cluster version has invalid desired release version: /,
    );
  });

  it('an incompatible CSV, then compatible, then a bare X.Y, then garbage, then two properties (the envtest suite’s steps)', () => {
    let status = classicStatus(undefined, input()).status;
    const step = (annotations: Record<string, string>) => {
      status = classicStatus(status, input({ csvs: [csv('olm', 'olm'), csv('nostromo', 'xenomorph', annotations)] })).status;
      return upgradeable(status);
    };
    expect(step(withMax(`"${CLUSTER}"`))).toMatchObject({ status: 'False', reason: 'IncompatibleOperatorsInstalled', message: `${HEADER}\n- maximum supported OCP version for nostromo/xenomorph is 1.0` });
    expect(step(withMax('"1.1.0"'))).toEqual({ type: 'Upgradeable', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' });
    expect(step(withMax('1.0'))).toMatchObject({ status: 'False', reason: 'IncompatibleOperatorsInstalled', message: `${HEADER}\n- maximum supported OCP version for nostromo/xenomorph is 1.0` });
    expect(step(withMax('"garbage"'))).toMatchObject({
      message: `${HEADER}\n- nostromo/xenomorph has invalid olm.maxOpenShiftVersion properties: failed to parse "garbage" as semver: Invalid character(s) found in major number "0garbage"`,
    });
    expect(step(withMax(`"${CLUSTER}"`, '"1.1.0"'))).toMatchObject({
      message: `${HEADER}\n- nostromo/xenomorph has invalid olm.maxOpenShiftVersion properties: defining more than one "olm.maxOpenShiftVersion" property is not allowed`,
    });
    expect(step({ 'operatorframework.io/properties': '{"properties":[' })).toMatchObject({
      message: `${HEADER}\n- nostromo/xenomorph has invalid olm.maxOpenShiftVersion properties: failed to unmarshal properties annotation: unexpected end of JSON input`,
    });
  });

  it('a changed condition moves to the end (upstream’s SetCondition)', () => {
    const first = classicStatus(undefined, input()).status;
    const csvs = [csv('a', 'b', withMax('"0.9"'))];
    expect(classicStatus(first, input({ csvs })).status.conditions?.map((c) => c.type)).toEqual(['Progressing', 'Available', 'Degraded', 'Upgradeable']);
    const reordered = { ...first, conditions: [first.conditions![3]!, ...first.conditions!.slice(0, 3)] };
    expect(classicStatus(reordered, input({ csvs })).status.conditions?.map((c) => c.type)).toEqual(['Progressing', 'Available', 'Degraded', 'Upgradeable']);
  });
});

describe('classicSkews (TestIncompatibleOperators with CSVs)', () => {
  const at = (cluster: string, ...maxes: string[]) =>
    classicSkews(
      maxes.map((m, i) => csv('ns', `csv-${i}`, withMax(JSON.stringify(m)))),
      nextMinor(parseTolerant(cluster)),
    ).map((s) => ('error' in s ? `${s.name}: ${s.error}` : `${s.name}: ${s.max.major}.${s.max.minor}`));
  it('copied CSVs and CSVs without the property are skipped', () => {
    expect(classicSkews([csv('a', 'copy', withMax('"0.1"'), { 'olm.copiedFrom': 'b' }), csv('a', 'none'), csv('a', 'other', { 'operatorframework.io/properties': '{"properties":[{"type":"olm.gvk","value":{}}]}' })], { major: 1, minor: 1 })).toEqual([]);
  });
  it.each([
    ['Mixed', '1.0.0', ['1.1.0', '1.0.0', '1.0'], ['csv-1: 1.0', 'csv-2: 1.0']],
    ['Mixed/BadVersion', '1.0.0', ['1.1.0', 'bad_version'], [/^csv-1: failed to parse "bad_version" as semver: /]],
    ['EmptyVersion', '1.0.0', [''], ['csv-0: value cannot be "" (an empty string)']],
    ['Incompatible/pre', '1.0.0', ['1.1.0-pre', '1.1.0-pre+build'], [
      'csv-0: property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value 1.1.0-pre',
      'csv-1: property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value 1.1.0-pre+build',
    ]],
  ])('%s: cluster %s', (_name, cluster, maxes, want) => {
    const got = at(cluster, ...maxes);
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });
});
