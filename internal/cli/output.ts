// How cluster commands print: kubectl-operator's tables (Go tabwriter: minimum width 3, padding 2,
// no borders), `-o json` (Go's JSON printer: 4-space indent), `-o yaml` (sigs.k8s.io/yaml: keys
// sorted), `-o name` (kubectl's `<resource>.<group>/<name>`), and kubectl's AGE.
import type { Condition, KubeObject } from '../../api/meta/v1.ts';
import { humanDuration } from '../shared/gocompat/index.ts';
import { stripManagedFields } from '../shared/kube/index.ts';
import { realClock } from '../shared/toolkit/index.ts';
import { CliUsageError } from './types.ts';

/** `wide`: the table with more columns, as kubectl's; only list commands take it. */
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'name';
const FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml', 'name'];
/** What list commands take: kubectl get's formats. */
export const LIST_FORMATS: readonly OutputFormat[] = ['table', 'wide', 'json', 'yaml', 'name'];

/** `-o <format>`: absent or empty is `table`; anything else not in `allowed` is a usage error. */
export function outputFormat(value: string | undefined, allowed: readonly OutputFormat[] = FORMATS): OutputFormat {
  const v = value === undefined || value === '' ? 'table' : value;
  if (!(allowed as readonly string[]).includes(v)) throw new CliUsageError(`unrecognized output format "${v}": must be one of (${allowed.join(', ')})`);
  return v as OutputFormat;
}

const runeLength = (s: string): number => [...s].length;

/**
 * text/tabwriter with kubectl-operator's settings (minwidth 3, padding 2, spaces): every column but
 * the last is as wide as its widest cell plus 2 (at least 3); the last is not padded.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(3, ...all.map((r) => runeLength(r[i] ?? '') + 2)));
  return all
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(Math.max(0, (widths[i] ?? 0) - runeLength(cell))))).join(''))
    .map((line) => `${line}\n`)
    .join('');
}

/** kubectl's AGE of a timestamp (RFC 3339), `<unknown>` when absent. */
export function age(timestamp: string | undefined, now = realClock.date().getTime()): string {
  if (!timestamp) return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

type Named = { readonly metadata?: { readonly name?: string | undefined } | undefined };

/** Objects by name, in code-unit order (Go's string order). */
export const byName = (a: Named, b: Named): number => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1);

/** A condition's status, `Unknown` when the condition is absent (kubectl-operator's `status`). */
export function conditionStatus(conditions: readonly Condition[] | undefined, type: string): string {
  return conditions?.find((c) => c.type === type)?.status ?? 'Unknown';
}

/** What `-o json|yaml` shows of an object: kubectl hides managedFields. */
export const shown = stripManagedFields;

/** A list as kubectl-operator prints one (`<Kind>List`, group version of the items). */
export function listOf(apiVersion: string, kind: string, items: readonly KubeObject[]): KubeObject & { items: KubeObject[] } {
  return { kind: `${kind}List`, apiVersion, metadata: {}, items: items.map(shown) } as KubeObject & { items: KubeObject[] };
}

/** Go's json.MarshalIndent(v, "", "    ") and a newline. */
export const json = (v: unknown): string => `${JSON.stringify(v, null, 4)}\n`;

/** sigs.k8s.io/yaml: keys sorted, no line folding. js-yaml is imported on first use. */
export async function yaml(v: unknown): Promise<string> {
  const { dump } = await import('js-yaml');
  return dump(v, { sortKeys: true, lineWidth: -1, noRefs: true });
}

/** kubectl's `-o name`: `<singular resource>.<group>/<name>`. */
export const objectName = (resource: string, group: string, name: string): string => `${resource}.${group}/${name}`;

/** Writes and waits for the stream to take it (large outputs to a pipe). */
export async function emit(stream: NodeJS.WritableStream, text: string | Uint8Array): Promise<void> {
  if (text.length === 0) return;
  if (!stream.write(text)) await new Promise<void>((r) => stream.once('drain', () => r()));
}

/** The type of the objects a command prints: `-o json|yaml`'s list, `-o name`'s `<resource>.<group>`. */
export interface PrintedType {
  readonly apiVersion: string;
  readonly kind: string;
  readonly resource: string;
  readonly group: string;
}

/**
 * `-o json|yaml` (the object when `single` names one, else a `<Kind>List`) and `-o name`; false for the table
 * formats, which the caller prints.
 */
export async function emitObjects(stdout: NodeJS.WritableStream, format: OutputFormat, items: readonly KubeObject[], single: boolean, type: PrintedType): Promise<boolean> {
  if (format === 'json' || format === 'yaml') {
    const value = single && items.length === 1 ? shown(items[0]!) : listOf(type.apiVersion, type.kind, items);
    await emit(stdout, format === 'json' ? json(value) : await yaml(value));
    return true;
  }
  if (format !== 'name') return false;
  await emit(stdout, items.map((o) => `${objectName(type.resource, type.group, o.metadata.name ?? '')}\n`).join(''));
  return true;
}
