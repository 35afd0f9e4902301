import { describe, expect, it } from 'vitest';
import { runCaptured } from './run.ts';
import { complete, Directive, flagsOf, parseConnection, type NameSource } from './completion.ts';
import { commands } from './commands.ts';

const NAMES: Record<NameSource, string[]> = { extensions: ['demo-operator', 'other'], catalogs: ['olm-demo'], subscriptions: ['etcd'], installplans: ['install-abc'] };
const names = async (what: NameSource): Promise<string[]> => NAMES[what];

describe('complete (cobra protocol)', () => {
  it('completes command words, groups and subcommands', async () => {
    expect(await complete(commands, ['up'], names)).toEqual({ candidates: ['upgrade', 'upgrade-check'], directive: Directive.NoFileComp });
    expect((await complete(commands, ['catalog', ''], names)).candidates).toEqual(['add', 'list', 'delete', 'validate', 'render', 'push']);
    expect((await complete(commands, [''], names)).candidates).not.toContain('__complete');
  });

  it('completes a command’s flags from its help', async () => {
    expect((await complete(commands, ['install', '--cr'], names)).candidates).toEqual(['--create-namespace', '--crd-upgrade-safety-enforcement']);
    expect((await complete(commands, ['upgrade', 'x', '--f'], names)).candidates).toEqual(['--force']);
  });

  it('completes extension and catalog names from the cluster, files for directory commands', async () => {
    expect(await complete(commands, ['status', 'de'], names)).toEqual({ candidates: ['demo-operator'], directive: Directive.NoFileComp });
    expect((await complete(commands, ['catalog', 'delete', ''], names)).candidates).toEqual(['olm-demo']);
    expect(await complete(commands, ['catalog', 'validate', 'dem'], names)).toEqual({ candidates: [], directive: Directive.Default });
  });

  it('with --classic: the classic command\'s flags, Subscription names; approve completes InstallPlans', async () => {
    expect((await complete(commands, ['install', '--classic', '--appr'], names)).candidates).toEqual(['--approval']);
    expect((await complete(commands, ['uninstall', '--classic', '--delete-op'], names)).candidates).toEqual(['--delete-operands', '--delete-operator-groups']);
    expect((await complete(commands, ['uninstall', '--classic', '-n', 'ops', ''], names)).candidates).toEqual(['etcd']);
    expect((await complete(commands, ['uninstall', ''], names)).candidates).toEqual(['demo-operator', 'other']);
    expect((await complete(commands, ['approve', 'in'], names)).candidates).toEqual(['install-abc']);
    expect(parseConnection(['uninstall', '--classic', '-n', 'ops', '--context=c'])).toEqual({ namespace: 'ops', context: 'c' });
  });

  it('flagsOf reads long flags once, in order', () => {
    expect(flagsOf('  --wait  x --timeout <d>\n  --wait again, not a--flag')).toEqual(['--wait', '--timeout']);
  });
});

describe('completion scripts', () => {
  it('bash and zsh scripts call __complete; other shells are a usage error', async () => {
    const bash = await runCaptured(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('kubectl-olm __complete');
    expect(bash.stdout).toContain('complete -F _kubectl_olm kubectl-olm');
    const zsh = await runCaptured(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef kubectl-olm\n/);
    expect((await runCaptured(['completion', 'fish'])).code).toBe(2);
  });

  it('__complete prints candidates then the directive', async () => {
    const r = await runCaptured(['__complete', 'uni']);
    expect(r.stdout).toBe('uninstall\n:4\n');
  });
});
