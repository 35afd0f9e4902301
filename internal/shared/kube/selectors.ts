// Label and field selectors in their query-string form.
import type { LabelSelector } from '../../../api/meta/v1.ts';

/** `matchLabels` and `matchExpressions` as the `labelSelector` query parameter (values sorted, like apimachinery). */
export function labelSelectorString(selector: LabelSelector): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) parts.push(`${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    switch (e.operator) {
      case 'In':
        parts.push(`${e.key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${e.key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(e.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${e.key}`);
        break;
      default:
        throw new TypeError(`unknown label selector operator "${String((e as { operator: unknown }).operator)}"`);
    }
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
