// The upgrade-check report as a table (the CLI's default output).
import type { Blocker, Report, UpgradeCandidate } from './check.ts';

const upgradeText = (u: UpgradeCandidate): string => {
  if ('none' in u) return `none: ${u.none}`;
  const max = u.maxOpenShiftVersion ? `, max ${u.maxOpenShiftVersion}` : '';
  return `${u.bundle} (${u.source}${max}${u.note ? `; ${u.note}` : ''})`;
};

const maxText = (b: Blocker): string => b.maxOpenShiftVersion ?? `invalid: ${b.error ?? ''}`;

/** Aligned columns, a header line naming the versions, and a closing count. */
export function formatReport(r: Report): string {
  const lines = [`Cluster version ${r.current}; checking the upgrade to ${r.target}.`];
  if (r.blocking.length === 0) return [...lines, `Nothing blocks the upgrade to ${r.target}.`, ''].join('\n');
  const rows = [
    ['KIND', 'NAMESPACE', 'NAME', 'BUNDLE', 'MAX OPENSHIFT', 'UPGRADE TO'],
    ...r.blocking.map((b) => [b.kind, b.namespace ?? '', b.name, b.bundle, maxText(b), upgradeText(b.upgradeTo)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) lines.push(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]! + 3))).join('').trimEnd());
  lines.push('', `${r.blocking.length} install${r.blocking.length === 1 ? '' : 's'} block${r.blocking.length === 1 ? 's' : ''} the upgrade to ${r.target}.`, '');
  return lines.join('\n');
}
