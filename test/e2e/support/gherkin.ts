// Upstream's feature files, parsed and compiled by the official Cucumber Gherkin parser into pickles: one per
// scenario (and per Examples row of a Scenario Outline), its Background steps first, its tags those of the
// feature, the scenario and the Examples.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from '@cucumber/gherkin';
import { IdGenerator, type GherkinDocument, type Pickle, type PickleStep } from '@cucumber/messages';

export const FEATURES_DIR = fileURLToPath(new URL('../features/', import.meta.url));

export interface Scenario {
  /** The feature file's base name without `.feature` (upstream's `e2e.olm.operatorframework.io/feature`). */
  readonly feature: string;
  /** The scenario's name as written. */
  readonly name: string;
  /** Unique within the run: the name, plus the Examples row's values for an outline's pickles. */
  readonly title: string;
  /** `@Tag` names without the `@`, feature tags included. */
  readonly tags: readonly string[];
  readonly steps: readonly PickleStep[];
  /** `<file>:<line>` of the scenario. */
  readonly location: string;
}

function parse(file: string): { doc: GherkinDocument; pickles: readonly Pickle[] } {
  const newId = IdGenerator.incrementing();
  const parser = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher());
  const doc = parser.parse(readFileSync(file, 'utf8'));
  return { doc, pickles: compile(doc, file, newId) };
}

/** Every scenario of every `*.feature` file in `dir` (default: the vendored features), in file and line order. */
export function loadScenarios(dir = FEATURES_DIR): Scenario[] {
  const out: Scenario[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.feature')).sort()) {
    const file = join(dir, f);
    const { doc, pickles } = parse(file);
    const lines = new Map<string, number>();
    const rows = new Map<string, string>();
    for (const child of doc.feature?.children ?? []) {
      const scenarios = [child.scenario, ...(child.rule?.children ?? []).map((c) => c.scenario)];
      for (const sc of scenarios) {
        if (!sc) continue;
        lines.set(sc.id, sc.location.line);
        for (const ex of sc.examples) {
          const header = ex.tableHeader?.cells.map((c) => c.value) ?? [];
          for (const row of ex.tableBody) {
            rows.set(row.id, row.cells.map((c, i) => `${header[i] ?? i}=${c.value}`).join(', '));
            lines.set(row.id, row.location.line);
          }
        }
      }
    }
    const feature = basename(f, '.feature');
    for (const p of pickles) {
      const row = p.astNodeIds[1] !== undefined ? rows.get(p.astNodeIds[1]) : undefined;
      const line = lines.get(p.astNodeIds[p.astNodeIds.length - 1] ?? '') ?? lines.get(p.astNodeIds[0] ?? '');
      out.push({
        feature,
        name: p.name,
        title: row ? `${p.name} (${row})` : p.name,
        tags: p.tags.map((t) => t.name.replace(/^@/, '')),
        steps: p.steps,
        location: `${f}:${line ?? '?'}`,
      });
    }
  }
  return out;
}
