import { describe, expect, it } from 'vitest';
import { parseTolerant } from '../../shared/semver/index.ts';
import { targetRules, upgradeCheck, type CsvInstall, type ExtensionInstall, type Finders } from './check.ts';
import { formatReport } from './format.ts';

const v1max = (v: string): string => `[{"type":"olm.maxOpenShiftVersion","value":${v}}]`;
const csvWith = (namespace: string, name: string, value?: string): CsvInstall => ({
  namespace,
  name,
  bundle: name,
  ...(value !== undefined && {
    annotations: { 'operatorframework.io/properties': `{"properties":[{"type":"olm.maxOpenShiftVersion","value":${value}}]}` },
  }),
});
const ext = (name: string, properties?: string): ExtensionInstall => ({ name, bundle: `${name}.v1.0.0`, version: '1.0.0', ...(properties !== undefined && { properties }) });

const finders: Finders = {
  extension: async (e) => (e.name === 'stuck' ? { none: 'no bundles found for package "stuck"' } : { bundle: `${e.name}.v2.0.0`, version: '2.0.0', source: 'ClusterCatalog c', maxOpenShiftVersion: '5.1' }),
  csv: async (c) => ({ bundle: `${c.name}-next`, version: '9.9.9', source: 'CatalogSource olm/cs channel stable' }),
};

describe('targetRules', () => {
  const allows = (current: string, to: string | undefined, kind: 'ClusterExtension' | 'ClusterServiceVersion', max: string) =>
    targetRules({ current, ...(to !== undefined && { to }) }).allows(kind, parseTolerant(max));
  it.each([
    // Upstream's rules for the next minor, per kind (the 4.22/4.23/5.0/5.1 matrix).
    ['4.22.0', 'ClusterServiceVersion', '4.22', false],
    ['4.22.0', 'ClusterServiceVersion', '4.23', true],
    ['4.22.0', 'ClusterExtension', '4.23', true],
    ['4.23.0', 'ClusterServiceVersion', '5.0', false],
    ['4.23.0', 'ClusterExtension', '5.0', false],
    ['4.23.0', 'ClusterExtension', '5.1', true],
    ['5.0.0', 'ClusterServiceVersion', '4.23', false],
    ['5.1.0', 'ClusterExtension', '5.1', false],
  ] as const)('cluster %s: %s with max %s allows the next minor: %s', (current, kind, max, want) => {
    expect(allows(current, undefined, kind, max)).toBe(want);
  });

  it('--to: the normalized max must reach the normalized target (4.23 ≡ 5.0)', () => {
    expect(targetRules({ current: '4.22.0', to: '4.23' }).target).toEqual({ major: 4, minor: 23 });
    expect(allows('4.22.0', '5.0', 'ClusterExtension', '4.23')).toBe(true);
    expect(allows('4.22.0', '5.1', 'ClusterServiceVersion', '4.23')).toBe(false);
    expect(allows('4.21.0', '4.22', 'ClusterExtension', '4.22')).toBe(true);
    expect(targetRules({ current: '4.22.0' }).allows('ClusterExtension', undefined)).toBe(true);
  });
});

describe('upgradeCheck', () => {
  it('lists blocking extensions then CSVs, invalid properties included, each with its way out', async () => {
    const report = await upgradeCheck(
      { current: '4.22.3' },
      {
        extensions: [ext('zeta', v1max('"4.22"')), ext('fine', v1max('"4.23"')), ext('none'), ext('broken', v1max('"v4.30"')), ext('stuck', v1max('4.21'))],
        csvs: [csvWith('ns', 'b.v1', '"4.22"'), csvWith('ns', 'a.v1', '"4.24"'), csvWith('ns', 'c.v1', '"garbage"'), csvWith('other', 'plain.v1')],
      },
      finders,
    );
    expect(report.current).toBe('4.22.3');
    expect(report.target).toBe('4.23');
    expect(report.blocking.map((b) => [b.kind, b.namespace ?? '', b.name, b.maxOpenShiftVersion ?? b.error])).toEqual([
      ['ClusterExtension', '', 'broken', 'error converting to semver for version "v4.30": invalid version format'],
      ['ClusterExtension', '', 'stuck', '4.21'],
      ['ClusterExtension', '', 'zeta', '4.22'],
      ['ClusterServiceVersion', 'ns', 'b.v1', '4.22'],
      ['ClusterServiceVersion', 'ns', 'c.v1', 'failed to parse "garbage" as semver: Invalid character(s) found in major number "0garbage"'],
    ]);
    expect(formatReport(report)).toBe(
      [
        'Cluster version 4.22.3; checking the upgrade to 4.23.',
        'KIND                    NAMESPACE   NAME     BUNDLE          MAX OPENSHIFT                                                                                         UPGRADE TO',
        'ClusterExtension                    broken   broken.v1.0.0   invalid: error converting to semver for version "v4.30": invalid version format                       broken.v2.0.0 (ClusterCatalog c, max 5.1)',
        'ClusterExtension                    stuck    stuck.v1.0.0    4.21                                                                                                  none: no bundles found for package "stuck"',
        'ClusterExtension                    zeta     zeta.v1.0.0     4.22                                                                                                  zeta.v2.0.0 (ClusterCatalog c, max 5.1)',
        'ClusterServiceVersion   ns          b.v1     b.v1            4.22                                                                                                  b.v1-next (CatalogSource olm/cs channel stable)',
        'ClusterServiceVersion   ns          c.v1     c.v1            invalid: failed to parse "garbage" as semver: Invalid character(s) found in major number "0garbage"   c.v1-next (CatalogSource olm/cs channel stable)',
        '',
        '5 installs block the upgrade to 4.23.',
        '',
      ].join('\n'),
    );
  });

  it('nothing blocks: an empty list and a line saying so', async () => {
    const report = await upgradeCheck({ current: '4.22.0', to: '4.23' }, { extensions: [ext('fine', v1max('"5.0"'))], csvs: [] }, finders);
    expect(report.blocking).toEqual([]);
    expect(formatReport(report)).toBe('Cluster version 4.22.0; checking the upgrade to 4.23.\nNothing blocks the upgrade to 4.23.\n');
  });
});
