// Label and field selectors in their query-string form.
import type { LabelSelector } from '../../../api/meta/v1.ts';

/** How each matchExpressions operator reads in a selector string. */
const EXPRESSION = new Map<unknown, (key: string, values: string) => string>([
  ['In', (key, values) => `${key} in (${values})`],
  ['NotIn', (key, values) => `${key} notin (${values})`],
  ['Exists', (key) => key],
  ['DoesNotExist', (key) => `!${key}`],
]);

/** `matchLabels` and `matchExpressions` as the `labelSelector` query parameter (values sorted, like apimachinery). */
export function labelSelectorString(selector: LabelSelector): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) parts.push(`${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const format = EXPRESSION.get(e.operator);
    if (!format) throw new TypeError(`unknown label selector operator "${String((e as { operator: unknown }).operator)}"`);
    parts.push(format(e.key, [...(e.values ?? [])].sort().join(',')));
  }
  return parts.join(',');
}

/** `{ 'metadata.name': 'x' }` → `metadata.name=x`, escaping `\`, `,` and `=` in values (fields.EscapeValue). */
export function fieldSelectorString(fields: Readonly<Record<string, string>>): string {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${v.replace(/[\\,=]/g, (c) => `\\${c}`)}`)
    .join(',');
}

export type LabelSelectorInput = string | LabelSelector;
export type FieldSelectorInput = string | Readonly<Record<string, string>>;

export function labelSelectorParam(s: LabelSelectorInput | undefined): string | undefined {
  return s === undefined ? undefined : typeof s === 'string' ? s : labelSelectorString(s);
}

export function fieldSelectorParam(s: FieldSelectorInput | undefined): string | undefined {
  return s === undefined ? undefined : typeof s === 'string' ? s : fieldSelectorString(s);
}
