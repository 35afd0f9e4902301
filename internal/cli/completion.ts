// Shell completion. `kubectl olm completion bash|zsh` prints a small script that asks the CLI itself
// (`kubectl-olm __complete <words…>`, cobra's protocol: one candidate per line, then `:<directive>`)
// what may come next — command words, the command's flags, or the names of the cluster's
// ClusterExtensions / ClusterCatalogs. kubectl's own plugin completion (`kubectl olm <TAB>`) calls
// `kubectl_complete-olm`, which bin/ provides and which runs the same `__complete`.
import { CONNECTION_OPTIONS, parseFlags, withClient } from './cluster.ts';
import { findCommand, variant } from './dispatch.ts';
import { CliUsageError, loadCommand, type CliCommand, type CliCommandEntry, type CliIO } from './types.ts';

/** cobra's ShellCompDirective values. */
export const Directive = { Default: 0, NoFileComp: 4 } as const;

/** The long flags a usage text names (`--wait`, `--output`, …), in order, once each. */
export function flagsOf(usage: string): string[] {
  return [...new Set([...usage.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]))];
}

/** Where a command's positional arguments come from. */
export function argumentSource(path: readonly string[], classic = false): NameSource | 'files' | 'none' {
  const p = path.join(' ');
  if (p === 'approve') return 'installplans';
  if (classic && ['upgrade', 'uninstall', 'list'].includes(p)) return 'subscriptions';
  if (['upgrade', 'uninstall', 'status', 'explain', 'list'].includes(p)) return 'extensions';
  if (['catalog list', 'catalog delete'].includes(p)) return 'catalogs';
  if (['catalog validate', 'catalog render', 'catalog push', 'bundle render', 'bundle push'].includes(p)) return 'files';
  return 'none';
}

/** Where names come from: cluster-scoped kinds, or (classic) kinds in the namespace -n names. */
export type NameSource = 'extensions' | 'catalogs' | 'subscriptions' | 'installplans';

/**
 * What may replace the last word of `words` (the words after `kubectl olm`, the last one being
 * typed), among the commands of `table` (commands.ts). `names` lists extensions or catalogs from the cluster when a
 * command takes one.
 */
export async function complete(table: readonly CliCommandEntry[], words: readonly string[], names: (what: NameSource) => Promise<string[]>) {
  const visible = table.filter((c) => !c.path[0]!.startsWith('__'));
  const typed = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const entry = findCommand(visible, before);
  if (!entry) {
    // Command words: the next word of every command whose path starts with what is typed so far.
    const next = visible.filter((c) => before.every((w, i) => c.path[i] === w) && c.path.length > before.length).map((c) => c.path[before.length]!);
    return { candidates: [...new Set(next)].filter((w) => w.startsWith(typed)), directive: Directive.NoFileComp };
  }
  const command: CliCommand = await variant(await loadCommand(entry), before);
  if (typed.startsWith('-')) return { candidates: [...flagsOf(command.usage), '--help'].filter((f) => f.startsWith(typed)), directive: Directive.NoFileComp };
  const source = argumentSource(command.path, before.includes('--classic'));
  if (source === 'files') return { candidates: [], directive: Directive.Default };
  if (source === 'none') return { candidates: [], directive: Directive.NoFileComp };
  const all = await names(source).catch(() => []);
  return { candidates: all.filter((n) => n.startsWith(typed)), directive: Directive.NoFileComp };
}

/** `__complete` over the command table it is listed in (passed in, so this module does not import the table). */
export const completeCommand = (table: readonly CliCommandEntry[]): CliCommand => ({
  path: ['__complete'],
  summary: 'shell completion (cobra protocol); used by the completion scripts',
  usage: 'Usage: kubectl olm __complete <words…>\n\nPrints the candidates for the last word, one per line, then `:<directive>` (cobra\'s protocol).',
  async run(args, io: CliIO) {
    // Connection flags among the words decide which cluster names come from.
    const conn = parseConnection(args);
    const { candidates, directive } = await complete(table, args, (what) =>
      withClient(conn, io, async (client) => {
        const { CE } = await import('./extension.ts');
        const { CC } = await import('./content.ts');
        const namespace = conn.namespace ?? client.defaultNamespace;
        const kind =
          what === 'extensions' ? CE : what === 'catalogs' ? CC : { apiVersion: 'operators.coreos.com/v1alpha1', kind: what === 'subscriptions' ? 'Subscription' : 'InstallPlan', namespace };
        const list = await client.list(kind);
        return list.items.map((o) => o.metadata?.name ?? '').filter(Boolean);
      }),
    );
    io.stdout.write(`${candidates.map((c) => `${c}\n`).join('')}:${directive}\n`);
    return 0;
  },
});

/** --kubeconfig, --context and -n/--namespace among the words. */
export function parseConnection(words: readonly string[]): { kubeconfig?: string | undefined; context?: string | undefined; namespace?: string | undefined } {
  const out: { kubeconfig?: string; context?: string; namespace?: string } = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    for (const flag of [...Object.keys(CONNECTION_OPTIONS), 'namespace'] as ('kubeconfig' | 'context' | 'namespace')[]) {
      if (w === `--${flag}` && words[i + 1] !== undefined) out[flag] = words[i + 1]!;
      else if (w.startsWith(`--${flag}=`)) out[flag] = w.slice(flag.length + 3);
    }
    if (w === '-n' && words[i + 1] !== undefined) out.namespace = words[i + 1]!;
  }
  return out;
}

const bashScript = `# bash completion for kubectl-olm (kubectl olm); generated by \`kubectl olm completion bash\`.
# Load it with:  source <(kubectl olm completion bash)
_kubectl_olm() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out directive
  out=$(kubectl-olm __complete "\${COMP_WORDS[@]:1:$COMP_CWORD}" 2>/dev/null) || return
  directive=$(printf '%s\\n' "$out" | tail -n 1)
  directive=\${directive#:}
  out=$(printf '%s\\n' "$out" | sed '$d')
  COMPREPLY=( $(compgen -W "$out" -- "$cur") )
  if [[ \${#COMPREPLY[@]} -eq 0 && $(( directive & 4 )) -eq 0 ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -F _kubectl_olm kubectl-olm
`;

const zshScript = `#compdef kubectl-olm
# zsh completion for kubectl-olm (kubectl olm); generated by \`kubectl olm completion zsh\`.
# Load it with:  source <(kubectl olm completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript}`;

export const completionCommand: CliCommand = {
  path: ['completion'],
  summary: 'print a bash or zsh completion script',
  usage: [
    'Usage: kubectl olm completion bash|zsh',
    '',
    'Prints a script that completes kubectl-olm\'s commands, their flags, and the names of the cluster\'s',
    'ClusterExtensions and ClusterCatalogs where a command takes one (with --classic: the Subscriptions, and for',
    'approve the InstallPlans, of the -n namespace), read with the current kubeconfig.',
    '`kubectl olm <TAB>` completes through kubectl\'s plugin completion when `kubectl_complete-olm` (in bin/,',
    'installed next to kubectl-olm) is on the PATH.',
    '',
    'Examples:',
    '  source <(kubectl olm completion bash)                 # this shell',
    '  kubectl olm completion bash > ~/.local/share/bash-completion/completions/kubectl-olm',
    '  kubectl olm completion zsh > "${fpath[1]}/_kubectl-olm"',
  ].join('\n'),
  async run(args, io) {
    parseFlags(args, {});
    if (args.length !== 1 || (args[0] !== 'bash' && args[0] !== 'zsh')) throw new CliUsageError('expected exactly one shell: bash or zsh');
    io.stdout.write(args[0] === 'bash' ? bashScript : zshScript);
    return 0;
  },
};
