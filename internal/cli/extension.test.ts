// Flag handling of the cluster commands (everything that is decided before the cluster is reached)
// and the words the table and status use. The cluster itself: test/integration/cli.
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../api/meta/v1.ts';
import type { ClusterExtension } from '../../api/v1/index.ts';
import { settled, stateOf } from './extension.ts';
import { runCaptured } from './run.ts';
import { conditionWords } from './status.ts';

const cond = (type: string, status: Condition['status'], reason: string, observedGeneration = 1): Condition => ({ type, status, reason, message: '', lastTransitionTime: '', observedGeneration });
const ext = (conditions: Condition[], extra: Partial<ClusterExtension['metadata']> = {}): ClusterExtension => ({ metadata: { name: 'x', generation: 1, ...extra }, status: { conditions } });

describe('usage errors (exit 2, before any cluster is reached)', () => {
  it.each([
    [['install'], 'missing <package>'],
    [['install', 'a', 'b'], 'expected <package>, got 2 arguments: a b'],
    [['install', 'p', '--version', '>=1.0.0 <2'], ''],
    [['install', 'p', '--version', 'not a version'], 'invalid `--version` "not a version": '],
    [['install', 'p', '--catalog-selector', 'a in b'], 'invalid `--catalog-selector` value "a in b": couldn\'t parse the selector string "a in b": unable to parse requirement: found \'b\' expected: \'(\''],
    [['install', 'p', '--upgrade-constraint-policy', 'Sometimes'], 'invalid `--upgrade-constraint-policy` "Sometimes": must be one of: [CatalogProvided SelfCertified]'],
    [['install', 'p', '--crd-upgrade-safety-enforcement', 'Lax'], 'invalid `--crd-upgrade-safety-enforcement` "Lax": must be one of: [Strict None]'],
    [['install', 'p', '--timeout', '5'], 'invalid --timeout: time: missing unit in duration "5"'],
    [['install', 'p', '-o', 'wide'], 'unrecognized output format "wide"'],
    [['install', 'p', '--bogus'], "Unknown option '--bogus'"],
    [['install', 'p', '--labels', 'novalue'], 'invalid --labels "novalue": want key=value'],
    [['upgrade', 'x', '--force', '--upgrade-constraint-policy', 'CatalogProvided'], '--force and --upgrade-constraint-policy CatalogProvided contradict each other'],
    [['uninstall'], 'missing <extension>'],
    [['status'], 'missing <extension>'],
    [['status', 'x', '-o', 'name'], 'unrecognized output format "name": must be one of (table, json, yaml)'],
    [['catalog', 'add', 'c'], 'missing <name> <image>'],
    [['catalog', 'add', 'c', 'img', '--available', 'maybe'], 'invalid `--available` value "maybe": must be one of: [true, false]'],
    [['catalog', 'add', 'c', 'img', '--priority', '1.5'], 'invalid argument "1.5" for "--priority" flag: want a 32-bit integer'],
    [['catalog', 'add', 'c', 'quay.io/a/b@sha256:' + '0'.repeat(64), '--source-poll-interval-minutes', '5'], 'cannot specify a non-zero --source-poll-interval-minutes for a digest based catalog image'],
    [['list', 'a', 'b'], 'expected at most one extension name, got 2'],
    [['search', 'a', 'b'], 'expected at most one search text, got 2'],
  ])('%j', async (argv, message) => {
    const r = await runCaptured(argv);
    if (message === '') {
      // A valid range gets past parsing: the next problem is the missing kubeconfig (exit 1).
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no Kubernetes configuration found');
      return;
    }
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stderr).toMatch(/\nSee 'kubectl olm [a-z -]+ --help' for usage\.\n$/);
    expect(r.stderr.split('\n')).toHaveLength(3);
  });

  it('uninstall --all with a name is refused as upstream words it', async () => {
    const r = await runCaptured(['uninstall', 'x', '--all']);
    expect(r).toMatchObject({ code: 2, stderr: 'failed to delete extension: cannot specify both --all and an extension name\n' });
  });
});

describe('upgrade --force confirmation', () => {
  it('refuses without a terminal unless --yes', async () => {
    const r = await runCaptured(['upgrade', 'x', '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--force needs a confirmation: upgradeConstraintPolicy: SelfCertified');
    expect(r.stderr).toContain('or add --yes');
  });

  it('asks on a terminal; no is a cancel (exit 1)', async () => {
    const r = await runCaptured(['upgrade', 'x', '--force'], { tty: true, stdin: 'n\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Upgrade extension "x" with upgradeConstraintPolicy: SelfCertified? [y/N] ');
    expect(r.stderr).toContain('upgrade cancelled');
  });

  it('yes goes on to the cluster', async () => {
    for (const opts of [{ tty: true, stdin: 'y\n' }, {}] as const) {
      const r = await runCaptured(['upgrade', 'x', '--force', ...('stdin' in opts ? [] : ['--yes'])], opts);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no Kubernetes configuration found');
    }
  });
});

describe('states and words', () => {
  it('stateOf', () => {
    expect(stateOf(ext([]))).toBe('Pending');
    expect(stateOf(ext([cond('Installed', 'True', 'Succeeded'), cond('Progressing', 'True', 'Succeeded')]))).toBe('Installed');
    expect(stateOf(ext([cond('Installed', 'True', 'Succeeded'), cond('Progressing', 'True', 'Succeeded'), cond('Available', 'False', 'Unavailable')]))).toBe('Installed, unavailable');
    expect(stateOf(ext([cond('Installed', 'False', 'Failed'), cond('Progressing', 'True', 'Retrying')]))).toBe('Retrying');
    expect(stateOf(ext([cond('Installed', 'True', 'Succeeded'), cond('Progressing', 'True', 'Retrying')]))).toBe('Installed, retrying');
    expect(stateOf(ext([cond('Installed', 'True', 'Succeeded'), cond('Progressing', 'True', 'RollingOut')]))).toBe('Upgrading');
    expect(stateOf(ext([cond('Progressing', 'False', 'Blocked')]))).toBe('Blocked');
    expect(stateOf(ext([], { deletionTimestamp: '2026-01-01T00:00:00Z' }))).toBe('Deleting');
  });

  it('settled needs Installed=True and Progressing=Succeeded for the generation asked', () => {
    const done = ext([cond('Installed', 'True', 'Succeeded', 1), cond('Progressing', 'True', 'Succeeded', 1)]);
    expect(settled(done, 1)).toBe(true);
    expect(settled(done, 2)).toBe(false);
    expect(settled(ext([cond('Installed', 'True', 'Succeeded'), cond('Progressing', 'True', 'Retrying')]), 1)).toBe(false);
    expect(settled(undefined, 1)).toBe(false);
  });

  it('conditionWords', () => {
    expect(conditionWords(cond('Progressing', 'True', 'Retrying'))).toBe('retrying after an error');
    expect(conditionWords(cond('Progressing', 'False', 'Blocked'))).toBe('blocked until something is fixed');
    expect(conditionWords(cond('Installed', 'False', 'Failed'))).toBe('not installed');
    expect(conditionWords(cond('BundleDeprecated', 'True', 'Deprecated'))).toBe('the installed bundle is deprecated');
    expect(conditionWords(cond('Deprecated', 'Unknown', 'DeprecationStatusUnknown'))).toBe('unknown');
  });
});

describe('flag values that start with a dash (pflag)', () => {
  it('--priority -5 and -o-… take the next argument as the value', async () => {
    const { attachValues } = await import('./cluster.ts');
    const opts = { priority: { type: 'string' }, wait: { type: 'boolean' }, output: { type: 'string', short: 'o' } } as const;
    expect(attachValues(['c', '--priority', '-5', '--wait'], opts)).toEqual(['c', '--priority=-5', '--wait']);
    expect(attachValues(['-o', '-x'], opts)).toEqual(['-o-x']);
    expect(attachValues(['--wait', '--priority', '3', '--', '--priority', '-1'], opts)).toEqual(['--wait', '--priority', '3', '--', '--priority', '-1']);
    const r = await runCaptured(['catalog', 'add', 'c', 'img', '--priority', '-5', '--available', 'maybe']);
    expect(r.stderr).toContain('invalid `--available` value "maybe"');
  });
});

describe('progressConditions: what --wait shows', () => {
  it('leaves out deprecations that are not, and an Available=False that repeats Progressing', async () => {
    const { progressConditions } = await import('./extension.ts');
    const c = (type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string) => ({ type, status, reason, message, lastTransitionTime: '' });
    const probe = 'Object Deployment.apps/v1 ns/op: condition "Available" is "False", not "True"';
    const shown = progressConditions({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: 'x' },
      status: {
        conditions: [
          c('Installed', 'False', 'Absent', 'rolling out'),
          c('Deprecated', 'False', 'NotDeprecated', 'not deprecated'),
          c('ChannelDeprecated', 'True', 'Deprecated', 'channel alpha is deprecated'),
          c('Available', 'False', 'Unavailable', probe),
          c('Progressing', 'True', 'Retrying', probe),
        ],
      },
    } as never);
    expect(shown.map((x) => x.type)).toEqual(['Installed', 'ChannelDeprecated', 'Progressing']);
  });
});
