// The classic commands' own logic: flags, choosing the CatalogSource and the startingCSV, the pending plan, the
// table row, the operands' scope; and that --classic selects the classic form (help and usage errors, no cluster).
import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion, InstallPlan, Subscription } from '../../../api/operators/index.ts';
import type { CatalogContent } from '../../classic/catalogsource/index.ts';
import {
  approvalFlag,
  chooseSource,
  csvNameOf,
  firstCSV,
  planOperatorGroup,
  possibleInstallModes,
  ownedKinds,
  PackageLookupError,
  pendingPlan,
  subscriptionRow,
  subscriptionTarget,
  supportedInstallModes,
  watchedNamespaces,
  type PackageSource,
} from './logic.ts';
import { isDone } from './common.ts';
import { runCaptured } from '../run.ts';
import { CliUsageError } from '../types.ts';

const content: CatalogContent = {
  origin: 'x',
  loadedAt: '2026-01-01T00:00:00Z',
  packages: [
    {
      name: 'etcd',
      defaultChannel: 'stable',
      channels: [
        { name: 'stable', entries: [{ name: 'etcd.v0.9.4', replaces: 'etcd.v0.9.2', skips: [], skipRange: '' }, { name: 'etcd.v0.9.2', replaces: '', skips: [], skipRange: '' }] },
        { name: 'alpha', entries: [{ name: 'etcd.v1.0.0-alpha', replaces: '', skips: [], skipRange: '' }] },
      ],
    },
  ],
  bundles: [
    {
      name: 'etcd.v0.9.4',
      package: 'etcd',
      image: '',
      version: '0.9.4',
      properties: [{ type: 'olm.csv.metadata', value: JSON.stringify({ installModes: [{ type: 'OwnNamespace', supported: false }, { type: 'AllNamespaces', supported: true }, { type: 'SingleNamespace', supported: true }] }) }],
    },
    { name: 'etcd.v0.9.2', package: 'etcd', image: '', version: '0.9.2', properties: [] },
    { name: 'etcd.v1.0.0-alpha', package: 'etcd', image: '', version: '1.0.0-alpha', properties: [] },
  ],
};
const src = (namespace: string, name: string): PackageSource => ({ namespace, name, pkg: content.packages[0]!, content });

describe('install --classic logic', () => {
  it('--approval: Automatic by default, Manual, anything else refused', () => {
    expect(approvalFlag(undefined)).toBe('Automatic');
    expect(approvalFlag('Manual')).toBe('Manual');
    expect(() => approvalFlag('manual')).toThrow(CliUsageError);
    expect(() => approvalFlag('manual')).toThrow('invalid argument "manual" for "--approval" flag: invalid approval value "manual"');
  });

  it('chooses the one CatalogSource serving the package; none or several is an error naming what to do', () => {
    expect(chooseSource('etcd', [src('ops', 'a')], ['ops', 'olm']).name).toBe('a');
    expect(() => chooseSource('etcd', [], ['ops', 'olm'])).toThrow(new PackageLookupError('package "etcd" not found in the CatalogSources of namespaces "ops" and "olm"'));
    expect(() => chooseSource('etcd', [], ['olm'])).toThrow('package "etcd" not found in the CatalogSources of namespace "olm"');
    expect(() => chooseSource('etcd', [src('ops', 'a'), src('olm', 'b')], ['ops', 'olm'])).toThrow(
      'package "etcd" is served by 2 CatalogSources; choose one: --catalog a --catalog-namespace ops; --catalog b --catalog-namespace olm',
    );
  });

  it('the channel defaults to the package default; --version picks that CSV of the channel as startingCSV', () => {
    expect(subscriptionTarget(src('olm', 'a'), undefined, undefined)).toEqual({ source: 'a', sourceNamespace: 'olm', channel: 'stable' });
    expect(subscriptionTarget(src('olm', 'a'), 'stable', 'v0.9.2')).toEqual({ source: 'a', sourceNamespace: 'olm', channel: 'stable', startingCSV: 'etcd.v0.9.2' });
    expect(subscriptionTarget(src('olm', 'a'), 'alpha', '1.0.0-alpha').startingCSV).toBe('etcd.v1.0.0-alpha');
    expect(() => subscriptionTarget(src('olm', 'a'), 'beta', undefined)).toThrow('channel "beta" does not exist for package "etcd"');
    expect(() => subscriptionTarget(src('olm', 'a'), undefined, '1.0.0-alpha')).toThrow('version "1.0.0-alpha" not found in channel "stable"');
    const noDefault = { ...src('olm', 'a'), pkg: { ...content.packages[0]!, defaultChannel: '' } };
    expect(() => subscriptionTarget(noDefault, undefined, undefined)).toThrow('package "etcd" does not have a default channel');
  });

  it('the CSV a Subscription starts from is the startingCSV or the channel head; its install modes come from olm.csv.metadata', () => {
    expect(firstCSV(src('olm', 'a'), { source: 'a', sourceNamespace: 'olm', channel: 'stable' })).toBe('etcd.v0.9.4');
    expect(firstCSV(src('olm', 'a'), { source: 'a', sourceNamespace: 'olm', channel: 'stable', startingCSV: 'etcd.v0.9.2' })).toBe('etcd.v0.9.2');
    expect(supportedInstallModes(content, 'etcd', 'etcd.v0.9.4')).toEqual(['AllNamespaces', 'SingleNamespace']);
    expect(supportedInstallModes(content, 'etcd', 'etcd.v0.9.2')).toBeUndefined();
  });

  it('picks the OperatorGroup as kubectl-operator does: all namespaces first, then its own, then --watch', () => {
    expect(possibleInstallModes([], 'ns')).toEqual(['AllNamespaces', 'OwnNamespace']);
    expect(possibleInstallModes([''], 'ns')).toEqual(['AllNamespaces', 'OwnNamespace']);
    expect(possibleInstallModes(['ns'], 'ns')).toEqual(['OwnNamespace']);
    expect(possibleInstallModes(['other'], 'ns')).toEqual(['SingleNamespace']);
    expect(possibleInstallModes(['a', 'b'], 'ns')).toEqual(['MultiNamespace']);
    expect(planOperatorGroup('etcd', ['AllNamespaces', 'OwnNamespace'], [], 'ns', undefined)).toEqual({ targetNamespaces: undefined });
    expect(planOperatorGroup('etcd', ['OwnNamespace', 'SingleNamespace'], [], 'ns', undefined)).toEqual({ targetNamespaces: ['ns'] });
    expect(planOperatorGroup('etcd', ['SingleNamespace'], ['other'], 'ns', undefined)).toEqual({ targetNamespaces: ['other'] });
    expect(planOperatorGroup('etcd', undefined, [], 'ns', undefined)).toEqual({ targetNamespaces: ['ns'] });
  });

  it('refuses with kubectl-operator\'s words an operator that cannot run as asked, or in the existing OperatorGroup', () => {
    expect(planOperatorGroup('etcd', ['AllNamespaces', 'SingleNamespace'], ['ns'], 'ns', undefined)).toEqual({
      problem: 'operator "etcd" is not installable: install modes supported by operator ("AllNamespaces,SingleNamespace") not compatible with install modes supported by desired watches ("OwnNamespace")',
    });
    expect(planOperatorGroup('etcd', [], [], 'ns', undefined)).toEqual({ problem: 'operator "etcd" is not installable: operator defined no supported install modes' });
    const own = { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og', namespace: 'ns' }, spec: { targetNamespaces: ['ns'] }, status: { namespaces: ['ns'], lastUpdated: '2026-01-01T00:00:00Z' } };
    expect(planOperatorGroup('etcd', ['AllNamespaces'], [], 'ns', own)).toEqual({
      problem: 'operator "etcd" not installable: install modes supported by operator ("AllNamespaces") not compatible with install modes supported by existing operator group ("OwnNamespace")',
    });
    expect(planOperatorGroup('etcd', ['AllNamespaces', 'OwnNamespace'], [], 'ns', own)).toEqual({ targetNamespaces: ['ns'] });
    const single = { ...own, spec: { targetNamespaces: ['other'] }, status: { namespaces: ['other'], lastUpdated: '2026-01-01T00:00:00Z' } };
    expect(planOperatorGroup('etcd', ['AllNamespaces', 'SingleNamespace'], [], 'ns', single)).toEqual({
      problem: 'operator "etcd" not installable: install modes supported by desired watches ("AllNamespaces,OwnNamespace") not compatible with install modes supported by existing operator group ("SingleNamespace")',
    });
    const all = { ...own, spec: {}, status: { namespaces: [''], lastUpdated: '2026-01-01T00:00:00Z' } };
    expect(planOperatorGroup('etcd', ['AllNamespaces', 'OwnNamespace'], [], 'ns', all)).toEqual({ targetNamespaces: undefined });
  });
});

const sub = (status: Subscription['status'], name = 'etcd'): Subscription => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'Subscription',
  metadata: { name, namespace: 'ops', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { name: 'etcd', channel: 'stable', source: 'a', sourceNamespace: 'olm' },
  ...(status && { status }),
});
const plan = (name: string, phase: string, approved = false): InstallPlan => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'InstallPlan',
  metadata: { name, namespace: 'ops' },
  spec: { approval: 'Manual', approved, clusterServiceVersionNames: ['etcd.v0.9.4'] },
  status: { phase, catalogSources: [] },
});
const csv = (name: string, phase: string, annotations?: Record<string, string>): ClusterServiceVersion =>
  ({
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name, namespace: 'ops', ...(annotations && { annotations }) },
    spec: { customresourcedefinitions: { owned: [{ name: 'etcdclusters.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' }] } },
    status: { phase },
  }) as unknown as ClusterServiceVersion;

describe('list --classic and waiting', () => {
  it('the pending plan is the referenced one in RequiresApproval, not yet approved', () => {
    const s = sub({ lastUpdated: '', state: 'UpgradePending', installPlanRef: { name: 'install-1', namespace: 'ops' } });
    expect(pendingPlan(s, [plan('install-1', 'RequiresApproval')])?.metadata.name).toBe('install-1');
    expect(pendingPlan(s, [plan('install-1', 'RequiresApproval', true)])).toBeUndefined();
    expect(pendingPlan(s, [plan('install-1', 'Complete')])).toBeUndefined();
    expect(pendingPlan(s, [plan('install-2', 'RequiresApproval')])).toBeUndefined();
  });

  it('a row: name, namespace, package, channel, installed CSV, state, the plan awaiting approval, age', () => {
    const s = sub({ lastUpdated: '', state: 'UpgradePending', installedCSV: 'etcd.v0.9.2', currentCSV: 'etcd.v0.9.4', installPlanRef: { name: 'install-1', namespace: 'ops' } });
    expect(subscriptionRow(s, [plan('install-1', 'RequiresApproval')], Date.parse('2026-01-01T00:05:00Z'))).toEqual(['etcd', 'ops', 'etcd', 'stable', 'etcd.v0.9.2', 'UpgradePending', 'install-1', '5m']);
    const failing = sub({ lastUpdated: '', conditions: [{ type: 'ResolutionFailed', status: 'True' }] });
    expect(subscriptionRow(failing, [])[5]).toBe('ResolutionFailed');
    // -o wide: the catalog, the approval mode and the CSV it heads for
    expect(subscriptionRow(s, [], Date.parse('2026-01-01T00:05:00Z'), true).slice(8)).toEqual(['olm/a', 'Automatic', 'etcd.v0.9.4']);
    expect(subscriptionRow(sub(undefined), [])[5]).toBe('Pending');
  });

  it('the CSV of a Subscription: installedCSV, else currentCSV', () => {
    expect(csvNameOf(sub({ lastUpdated: '', installedCSV: 'a', currentCSV: 'b' }))).toBe('a');
    expect(csvNameOf(sub({ lastUpdated: '', currentCSV: 'b' }))).toBe('b');
    expect(csvNameOf(sub(undefined))).toBe('');
  });

  it('done: the installed CSV is the current one, Succeeded, and not the one an upgrade started from', () => {
    const s = sub({ lastUpdated: '', installedCSV: 'etcd.v0.9.4', currentCSV: 'etcd.v0.9.4' });
    expect(isDone({ sub: s, plan: undefined, csv: csv('etcd.v0.9.4', 'Succeeded') }, '')).toBe(true);
    expect(isDone({ sub: s, plan: undefined, csv: csv('etcd.v0.9.4', 'Installing') }, '')).toBe(false);
    expect(isDone({ sub: s, plan: undefined, csv: csv('etcd.v0.9.4', 'Succeeded') }, 'etcd.v0.9.4')).toBe(false);
    const moving = sub({ lastUpdated: '', installedCSV: 'etcd.v0.9.2', currentCSV: 'etcd.v0.9.4' });
    expect(isDone({ sub: moving, plan: undefined, csv: csv('etcd.v0.9.2', 'Succeeded') }, '')).toBe(false);
  });
});

describe('uninstall --classic logic', () => {
  it('operands are looked for in the OperatorGroup\'s namespaces; "" means all', () => {
    expect(watchedNamespaces(csv('x', 'Succeeded', { 'olm.targetNamespaces': 'ops' }))).toEqual(['ops']);
    expect(watchedNamespaces(csv('x', 'Succeeded', { 'olm.targetNamespaces': 'a,b' }))).toEqual(['a', 'b']);
    expect(watchedNamespaces(csv('x', 'Succeeded', { 'olm.targetNamespaces': '' }))).toBeUndefined();
    expect(watchedNamespaces(csv('x', 'Succeeded'))).toEqual(['ops']);
  });

  it('owned CRDs as apiVersion and kind', () => {
    expect(ownedKinds(csv('x', 'Succeeded'))).toEqual([{ apiVersion: 'etcd.database.coreos.com/v1beta2', kind: 'EtcdCluster', crd: 'etcdclusters.etcd.database.coreos.com' }]);
  });
});

describe('--classic selects the classic form', () => {
  it('help of each classic form, and of approve, has its own usage and an example', async () => {
    for (const argv of [['install', '--classic', '--help'], ['upgrade', '--classic', '-h'], ['uninstall', '--classic', '--help'], ['list', '--classic', '--help'], ['approve', '--help']]) {
      const r = await runCaptured(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: kubectl olm ${argv[0]!}${argv[1] === '--classic' ? ' --classic' : ''} `));
      expect(r.stdout).toMatch(/\nExamples:\n {2}kubectl olm /);
    }
    expect((await runCaptured(['install', '--help'])).stdout).toContain('--classic');
  });

  it('usage errors exit 2 before any cluster access', async () => {
    const cases: [string[], string][] = [
      [['install', '--classic'], 'error: missing <package>'],
      [['install', '--classic', 'etcd', '--approval', 'Sometimes'], 'error: invalid argument "Sometimes" for "--approval" flag'],
      [['install', '--classic', 'etcd', '--catalog-namespace', 'olm'], 'error: --catalog-namespace needs --catalog'],
      [['install', '--classic', 'etcd', '--create-namespace'], "error: Unknown option '--create-namespace'"],
      [['approve'], 'error: missing <installplan>'],
      [['uninstall', '--classic'], 'error: missing <subscription>'],
      [['list', '--classic', '-A', '-n', 'x'], 'error: --namespace and --all-namespaces cannot both be given'],
      [['list', '--classic', '-o', 'jsonpath'], 'error: unrecognized output format "jsonpath": must be one of (table, wide, json, yaml, name)'],
      [['install', '--classic', 'etcd', '-o', 'wide'], 'error: unrecognized output format "wide"'],
    ];
    for (const [argv, err] of cases) {
      const r = await runCaptured(argv, { env: { KUBECONFIG: '/nonexistent' } });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toContain(err);
    }
  });
});
