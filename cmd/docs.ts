// The generated parts of docs/: every controller flag (docs/configuration.md) and every kubectl-olm command's usage
// (docs/cli.md), taken from the binaries' own flag definitions and usage texts. Each part sits between
// `<!-- BEGIN GENERATED <id> -->` and `<!-- END GENERATED <id> -->`; the prose around it is written by hand.
//   npm run docs:generate              rewrite the generated parts
//   npm run docs:generate -- --check   exit 1 when a page differs from what the definitions give (cmd/docs.test.ts)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

interface FlagDef {
  readonly type: 'string' | 'boolean';
  readonly default?: string | boolean;
  readonly help: string;
}

/** A table cell: `|` escaped, and `<`/`>` as entities so `<name>` is not taken for an HTML tag. */
const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\n', ' ');

function flagTable(flags: Readonly<Record<string, FlagDef>>): string {
  const rows = ['| flag | default | meaning |', '|---|---|---|'];
  for (const [name, f] of Object.entries(flags)) {
    const def = f.default === undefined || f.default === '' ? '' : `\`${String(f.default)}\``;
    rows.push(`| \`--${name}\`${f.type === 'string' ? ' _string_' : ''} | ${def} | ${cell(f.help)} |`);
  }
  return rows.join('\n');
}

/** The generated parts, by id. */
export async function generatedParts(): Promise<Record<string, string>> {
  const { managerFlags } = await import('../internal/shared/manager/index.ts');
  const { catalogdFlags } = await import('./catalogd/flags.ts');
  const { operatorControllerFlags } = await import('./operator-controller/flags.ts');
  const { olmClassicFlags } = await import('./olm-classic/flags.ts');
  const { commands, loadCommand } = await import('../internal/cli/index.ts');

  const parts: Record<string, string> = {
    'flags-common': flagTable(managerFlags),
    'flags-catalogd': flagTable(catalogdFlags),
    'flags-operator-controller': flagTable(operatorControllerFlags),
    'flags-olm-classic': flagTable(olmClassicFlags),
  };
  const cli: string[] = [];
  for (const entry of commands) {
    if (entry.path[0]!.startsWith('__')) continue;
    const command = await loadCommand(entry);
    cli.push(`### \`kubectl olm ${command.path.join(' ')}\``, '', command.summary, '', '```text', command.usage.trimEnd(), '```', '');
    if (command.classic) cli.push('With `--classic`:', '', '```text', (await command.classic()).usage.trimEnd(), '```', '');
  }
  parts['cli-commands'] = cli.join('\n').trimEnd();
  return parts;
}

/** The docs pages that hold generated parts. */
export const PAGES = ['docs/configuration.md', 'docs/cli.md'] as const;

/** `page` with every generated part replaced by what the definitions give now. */
export function fill(page: string, text: string, parts: Readonly<Record<string, string>>): string {
  return text.replace(/<!-- BEGIN GENERATED ([\w-]+) -->\n[\s\S]*?<!-- END GENERATED \1 -->/g, (_all, id: string) => {
    const part = parts[id];
    if (part === undefined) throw new Error(`${page}: no generated part named ${id}`);
    return `<!-- BEGIN GENERATED ${id} -->\n${part}\n<!-- END GENERATED ${id} -->`;
  });
}

async function run(check: boolean): Promise<number> {
  const parts = await generatedParts();
  const used = new Set<string>();
  let stale = 0;
  for (const page of PAGES) {
    const file = join(root, page);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/<!-- BEGIN GENERATED ([\w-]+) -->/g)) used.add(m[1]!);
    const next = fill(page, text, parts);
    if (next === text) continue;
    if (check) {
      process.stderr.write(`${page} is out of date with the flag definitions and CLI usage texts: run npm run docs:generate\n`);
      stale++;
    } else {
      writeFileSync(file, next);
      process.stdout.write(`wrote ${page}\n`);
    }
  }
  for (const id of Object.keys(parts)) {
    if (!used.has(id)) {
      process.stderr.write(`no page has the generated part ${id}\n`);
      stale++;
    }
  }
  return stale === 0 ? 0 : 1;
}

if (process.argv[1] === import.meta.filename) {
  // Flag defaults that read the environment when their module loads: documented as the flag's help text says, never
  // as whatever this shell happens to have set.
  for (const v of ['LOG_LEVEL', 'POD_NAMESPACE', 'OLM_INSECURE_REGISTRIES']) delete process.env[v];
  process.exitCode = await run(process.argv.includes('--check'));
}
