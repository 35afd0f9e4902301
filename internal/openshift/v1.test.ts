// OLM v1's gating, cluster-olm-operator's TestIncompatibleOperatorController_Sync (ClusterObjectSet cases) plus the
// ClusterOperator condition library-go's status syncer makes of its operator condition.
import { describe, expect, it } from 'vitest';
import { unionCondition } from './clusteroperator.ts';
import { v1CurrentMinor } from './version.ts';
import { latestActive, v1CheckProperties, v1Incompatible, v1OperatorCondition, v1Upgradeable, type ExtensionInfo, type RevisionInfo } from './v1.ts';

const max = (v: string): string => `[{"type":"olm.maxOpenShiftVersion","value":${v}}]`;
const rev = (number: number, bundleName: string, properties?: string, active = true): RevisionInfo => ({
  number,
  active,
  bundleName,
  ...(properties !== undefined && { properties }),
});
const ext = (name: string, ...revisions: RevisionInfo[]): ExtensionInfo => ({ name, revisions });
const sync = (cluster: string, ...extensions: ExtensionInfo[]) => {
  const minor = v1CurrentMinor(cluster);
  return v1OperatorCondition(v1Incompatible(extensions, minor), minor);
};

describe('v1: InstalledOLMOperatorsUpgradeable (TestIncompatibleOperatorController_Sync, ClusterObjectSet cases)', () => {
  it.each([
    ['no operators', '4.17.0', [], 'True', undefined, undefined],
    ['upgradable operator', '4.17.0', [ext('test-operator', rev(1, 'test-bundle-1.0', max('"4.18"')))], 'True', undefined, undefined],
    ['operator without olm.properties is interpreted as upgradable', '4.17.0', [ext('test-operator', rev(1, 'test-bundle-1.0'))], 'True', undefined, undefined],
    ['operator with empty olm.properties errors', '4.17.0', [ext('test-operator', rev(1, 'test-bundle-1.0', ''))], 'False', 'FailureGettingExtensionMetadata', 'could not convert olm.properties'],
    ['not upgradable operator found', '4.17.0', [ext('test-operator', rev(1, 'test-bundle-1.0', max('"4.17"')))], 'False', 'IncompatibleOperatorsInstalled', 'test-bundle-1.0'],
    [
      'not upgradable operator with multiple revisions found',
      '4.17.0',
      [ext('test-operator', rev(3, 'test-bundle-1.2', max('"4.17"'))), ext('test-operator-2', rev(1, 'test-bundle-1.2', max('"4.18"')))],
      'False',
      'IncompatibleOperatorsInstalled',
      'test-bundle-1.2',
    ],
    [
      'upgradable and not upgradable operators (the latest Active revision counts)',
      '4.17.0',
      [ext('test-operator', rev(1, 'test-bundle-1.0', max('"4.17"'), false), rev(2, 'test-bundle-1.1', max('"4.18"')), rev(3, 'test-bundle-1.2', max('"4.17"')))],
      'False',
      'IncompatibleOperatorsInstalled',
      'test-bundle-1.2',
    ],
    ['maxOCPVersion=5.1 with cluster at 4.23 is upgradable', '4.23.0', [ext('test-operator', rev(1, 'test-bundle-1.0', max('"5.1"')))], 'True', undefined, undefined],
    ['maxOCPVersion=5.0 with cluster at 4.23 is not upgradable', '4.23.0', [ext('test-operator', rev(1, 'test-bundle-1.0', max('"5.0"')))], 'False', 'IncompatibleOperatorsInstalled', 'to version 5.1:'],
    ['maxOCPVersion=5.1 with cluster at 5.0 is upgradable', '5.0.0', [ext('test-operator', rev(1, 'test-bundle-1.0', max('"5.1"')))], 'True', undefined, undefined],
    ['maxOCPVersion=5.0 with cluster at 5.0 is not upgradable', '5.0.0', [ext('test-operator', rev(1, 'test-bundle-1.0', max('"5.0"')))], 'False', 'IncompatibleOperatorsInstalled', 'to version 5.1:'],
    ['maxOCPVersion=4.23 with cluster at 5.0 is not upgradable', '5.0.0', [ext('test-operator', rev(1, 'test-bundle-1.0', max('"4.23"')))], 'False', 'IncompatibleOperatorsInstalled', 'test-bundle-1.0'],
    ['5.1 cluster => 5.2', '5.1.0', [ext('test-operator', rev(1, 'test-bundle-1.0', max('"5.1"')))], 'False', 'IncompatibleOperatorsInstalled', 'to version 5.2:'],
  ] as const)('%s', (_name, cluster, extensions, status, reason, contains) => {
    const c = sync(cluster, ...extensions);
    expect(c.status).toBe(status);
    expect(c.reason).toBe(reason);
    if (contains) expect(c.message).toContain(contains);
    else expect(c.message).toBeUndefined();
  });

  it('the whole message: blockers sorted, metadata errors joined one per line after them', () => {
    const c = sync(
      '4.22.1',
      ext('zeta', rev(1, 'zeta.v1.0.0', max('4.22'))),
      ext('broken', rev(2, 'broken.v2', '[{"type":"olm.maxOpenShiftVersion","value":"v4.30"},{"type":"olm.maxOpenShiftVersion","value":"4.30"}]')),
      ext('demo-operator', rev(1, 'demo-operator.v0.1.0', max('"4.22"'))),
      ext('garbled', rev(1, 'garbled.v1', '{')),
    );
    expect(c).toEqual({
      type: 'InstalledOLMOperatorsUpgradeable',
      status: 'False',
      reason: 'IncompatibleOperatorsInstalled',
      message: [
        'Found ClusterExtensions that require upgrades prior to upgrading cluster to version 4.23: bundle "demo-operator.v0.1.0" for ClusterExtension "demo-operator",bundle "zeta.v1.0.0" for ClusterExtension "zeta".',
        ' Additionally the following errors were encountered while getting extension metadata: error(s) with cluster extension broken: error in bundle broken.v2: error converting to semver for version "v4.30": invalid version format',
        'more than one olm.maxOpenShiftVersion found in bundle',
        'error with cluster extension garbled: error in bundle garbled.v1: could not convert olm.properties: failed to unmarshal properties annotation: unexpected end of JSON input',
      ].join('\n'),
    });
  });

  it('archived revisions and extensions without an Active one are skipped', () => {
    expect(latestActive([rev(4, 'a', undefined, false), rev(2, 'b'), rev(3, 'c')])?.bundleName).toBe('c');
    expect(latestActive([rev(1, 'a', undefined, false)])).toBeUndefined();
    expect(sync('4.22.0', ext('gone', rev(1, 'old', max('"4.1"'), false))).status).toBe('True');
  });

  it('checkIncompatibility: numbers and strings by ToAllowedSemver, the last valid property decides', () => {
    const at = v1CurrentMinor('4.18.2');
    expect(v1CheckProperties([{ type: 'olm.maxOpenShiftVersion', value: '4.19' }], at)).toEqual({ incompatible: false, errors: [] });
    expect(v1CheckProperties([{ type: 'olm.maxOpenShiftVersion', value: '4.18' }], at)).toEqual({ incompatible: true, errors: [] });
    expect(v1CheckProperties([{ type: 'olm.maxOpenShiftVersion', value: '4.19e1' }], at)).toEqual({
      incompatible: false,
      errors: ['error converting to semver for version 4.19e1: invalid semver format "4.19e1": expected <major>.<minor>'],
    });
  });
});

describe('v1: the ClusterOperator Upgradeable condition (library-go union of *Upgradeable conditions)', () => {
  it('False: reason <prefix>_<reason>, each message line prefixed with the condition type', () => {
    const minor = v1CurrentMinor('4.22.0');
    const result = v1Incompatible([ext('demo-operator', rev(1, 'demo-operator.v0.1.0', max('"4.22"')))], minor);
    expect(v1Upgradeable(result, minor)).toEqual({
      type: 'Upgradeable',
      status: 'False',
      reason: 'InstalledOLMOperators_IncompatibleOperatorsInstalled',
      message:
        'InstalledOLMOperatorsUpgradeable: Found ClusterExtensions that require upgrades prior to upgrading cluster to version 4.23: bundle "demo-operator.v0.1.0" for ClusterExtension "demo-operator".',
    });
    expect(v1Upgradeable({ blocking: [], errors: ['e1', 'e1', 'e2'] }, minor)).toEqual({
      type: 'Upgradeable',
      status: 'False',
      reason: 'InstalledOLMOperators_FailureGettingExtensionMetadata',
      message: 'InstalledOLMOperatorsUpgradeable: e1\nInstalledOLMOperatorsUpgradeable: e2',
    });
  });

  it('True: AsExpected, All is well', () => {
    const minor = v1CurrentMinor('4.22.0');
    expect(v1Upgradeable({ blocking: [], errors: [] }, minor)).toEqual({ type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: 'All is well' });
  });

  it('unionCondition: no data, Unknown, several bad conditions sorted', () => {
    expect(unionCondition('Upgradeable', 'True', [])).toEqual({ type: 'Upgradeable', status: 'Unknown', reason: 'NoData' });
    expect(
      unionCondition('Upgradeable', 'True', [
        { type: 'ZUpgradeable', status: 'False', reason: 'Z', message: 'z' },
        { type: 'AUpgradeable', status: 'Unknown' },
        { type: 'Degraded', status: 'True' },
      ]),
    ).toEqual({ type: 'Upgradeable', status: 'False', reason: 'A::Z_Z', message: 'ZUpgradeable: z' });
  });
});
