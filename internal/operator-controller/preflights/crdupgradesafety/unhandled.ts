// The `unhandled` check: whatever still differs once every comparator has cleared its fields. crdify reports
// go-cmp's diff of the two schemas; operator-controller condenses it to `unhandled changes found (<field> <old> ->
// <new>; …)`. The condensing follows upstream's formatter: one entry per field name in the order the field first
// appears in the diff (a later line of the same name overwrites), `v1.` dropped from values, anything mentioning
// JSONSchemaProps shown as `<complex value>`, a missing side as `<empty>`, and ` (changed)` after a new value that
// reads the same as the old one.
import { cmpDiffLines, type DiffLine } from './gofmt.ts';
import { canonicalJson, type Schema } from './schema.ts';

const PREFIX = 'unhandled changes found';

export function unhandledChanges(a: Schema, b: Schema): string[] {
  if (canonicalJson(a) === canonicalJson(b)) return [];
  const details = condense(cmpDiffLines(a, b));
  return [details.length > 0 ? `${PREFIX} (${details.join('; ')})` : PREFIX];
}

interface Entry {
  before: string;
  after: string;
  beforeRaw: string;
  afterRaw: string;
}

/** Upstream's condensing of diff lines into `<field> <old> -> <new>` details. */
export function condense(lines: readonly DiffLine[]): string[] {
  const entries = new Map<string, Entry>();
  for (const line of lines) {
    const parsed = parseLine(line.text);
    if (!parsed) continue;
    const [field, value, raw] = parsed;
    const entry = entries.get(field) ?? { before: '', after: '', beforeRaw: '', afterRaw: '' };
    entries.set(field, entry); // a field already there keeps its place
    Object.assign(entry, line.sign === '-' ? { before: value, beforeRaw: raw } : { after: value, afterRaw: raw });
  }
  const details: string[] = [];
  for (const [field, e] of entries) {
    if (e.before === '' && e.after === '') continue;
    if (e.before === e.after && e.beforeRaw === e.afterRaw) continue;
    const before = e.before === '' ? '<empty>' : e.before;
    let after = e.after === '' ? '<empty>' : e.after;
    if (e.before === e.after) after += ' (changed)';
    details.push(`${field} ${before} -> ${after}`);
  }
  return details;
}

function parseLine(text: string): [field: string, value: string, raw: string] | undefined {
  const cleaned = text.trim().replace(/,$/, '');
  const colon = cleaned.indexOf(':');
  if (colon < 0) return undefined;
  const field = cleaned.slice(0, colon).trim();
  if (field === '') return undefined;
  const raw = cleaned.slice(colon + 1).trim();
  return [field, normalize(raw), raw];
}

function normalize(value: string): string {
  const v = value.replace(/,$/, '').trim();
  if (v === '') return '<empty>';
  if (v === '""') return '""';
  const stripped = v.replaceAll('v1.', '');
  return stripped.includes('JSONSchemaProps') ? '<complex value>' : stripped;
}
