// Turns every scenario of the vendored features into one vitest test of a profile's file: steps matched to our
// step definitions by upstream's patterns, run in order, the scenario's objects deleted afterwards (upstream's
// ScenarioCleanup). Scenarios run concurrently (vitest's maxConcurrency bounds them); @Serial ones run after them,
// one at a time, as upstream's Makefile runs them in a second, serial phase. A scenario is skipped with its reason
// when a tag names a gate that is off in the profile (hooks.go's CheckFeatureTags), when upstream's Makefile
// filters its tag out, or when skips.ts says our cluster cannot give what it needs.
//
// E2E_FEATURE=install,update (feature file names) and E2E_SCENARIO=<name prefix, case-insensitive> select
// scenarios; vitest's -t filters by test name too.
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, it } from 'vitest';
import { DEPLOYED_FEATURES, DEPLOYED_SCENARIOS, EXCLUDED_TAGS, NOT_YET } from '../skips.ts';
import { realNodesUnavailable } from '../../support/real-node.ts';
import { startDeployedProfile } from './deployed.ts';
import { matchStep } from '../steps/steps.ts';
import { loadScenarios, type Scenario } from './gherkin.ts';
import { PROFILES, startProfile, tagGates, type ProfileName, type RunningProfile } from './profile.ts';
import { World } from './world.ts';

/** A scenario's own time limit: its steps each wait at most E2E_STEP_TIMEOUT (default 2 minutes). */
const SCENARIO_TIMEOUT_MS = 30 * 60_000;

/** Whether the scenario needs Pods (the deployed profiles run it), and why. */
export function needsPods(s: Scenario): string | undefined {
  return DEPLOYED_FEATURES[s.feature] ?? DEPLOYED_SCENARIOS[`${s.feature}: ${s.name}`];
}

/** Why the scenario does not run in this profile (in process, or `deployed`), or undefined when it runs. */
export function skipReason(s: Scenario, gates: Readonly<Record<string, boolean>>, deployed = false): string | undefined {
  for (const t of s.tags) if (gates[t] === false) return `feature gate ${t} is disabled in this profile`;
  for (const t of s.tags) if (EXCLUDED_TAGS[t]) return EXCLUDED_TAGS[t];
  const pods = needsPods(s);
  if (!deployed) return pods === undefined ? undefined : `runs in the deployed profile (<profile>-pods.test.ts): ${pods}`;
  return NOT_YET[s.feature] ?? NOT_YET[`${s.feature}: ${s.name}`];
}

function selected(s: Scenario): boolean {
  const features = (process.env.E2E_FEATURE ?? '').split(',').map((f) => f.trim().replace(/\.feature$/, '')).filter((f) => f !== '');
  if (features.length > 0 && !features.includes(s.feature)) return false;
  const prefix = (process.env.E2E_SCENARIO ?? '').trim().toLowerCase();
  return prefix === '' || s.name.toLowerCase().startsWith(prefix);
}

interface Outcome {
  readonly scenario: string;
  readonly state: 'passed' | 'failed' | 'skipped';
  readonly seconds?: number;
  readonly detail?: string;
}

async function runScenario(profile: RunningProfile, s: Scenario, id: string): Promise<void> {
  const w = new World(profile, id, s.feature, s.name);
  try {
    for (const [i, st] of s.steps.entries()) {
      const match = matchStep(st.text);
      const where = `${s.location} step ${i + 1} "${st.text}"`;
      if (!match) throw new Error(`${where}: no step definition matches this step`);
      const started = Date.now();
      try {
        await match.def.run(w, match.captures, {
          ...(st.argument?.docString && { docString: st.argument.docString.content }),
          ...(st.argument?.dataTable && { table: st.argument.dataTable.rows.map((r) => r.cells.map((c) => c.value)) }),
        });
      } catch (err) {
        const e = new Error(`${where} failed after ${Math.round((Date.now() - started) / 1000)}s (scenario id ${id}): ${(err as Error).message}`);
        e.stack = e.message;
        throw e;
      }
    }
  } finally {
    await w.cleanup();
  }
}

/**
 * Registers the profile's control plane and controllers (beforeAll/afterAll) and one test per scenario: in process, or
 * `deployed` (the scenarios that need Pods, on a real node; skipped with the reason where this machine has none).
 */
export function defineProfileTests(name: ProfileName, { deployed = false }: { deployed?: boolean } = {}): void {
  const spec = PROFILES[name];
  const gates = tagGates(spec);
  const label = deployed ? `${name}-pods` : name;
  const noRealNodes = deployed ? realNodesUnavailable() : undefined;
  let profile: RunningProfile | undefined;
  const outcomes: Outcome[] = [];

  beforeAll(async () => {
    const started = Date.now();
    // Nothing to run (no real node here, or every scenario skipped): no cluster either.
    if (ordered.every((p) => p.skip)) return;
    profile = deployed ? await startDeployedProfile(spec) : await startProfile(spec);
    console.log(
      `[e2e ${label}] control plane ${profile.cluster.server}, controllers running in ${Math.round((Date.now() - started) / 1000)}s; ` +
        `scenario gates ${JSON.stringify(gates)}` +
        (profile.unknownGates.length ? `; gates our flag parsers do not know yet (not passed): ${profile.unknownGates.join(', ')}` : ''),
    );
    const skipped = ordered.filter((p) => p.skip);
    if (skipped.length) console.log(`[e2e ${label}] skipped:\n${skipped.map((p) => `  ${p.s.feature}: ${p.s.title} — ${p.skip}`).join('\n')}`);
  }, 10 * 60_000);

  afterAll(async () => {
    await profile?.stop();
    const count = (st: Outcome['state']): number => outcomes.filter((o) => o.state === st).length;
    console.log(`[e2e ${label}] ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
    mkdirSync('.cache/e2e', { recursive: true });
    writeFileSync(`.cache/e2e/${label}.json`, JSON.stringify(outcomes, null, 2) + '\n');
  }, 5 * 60_000);

  const all = loadScenarios();
  // The deployed profiles register only the scenarios that need Pods (the others run in process).
  const plan = all
    .filter((s) => !deployed || needsPods(s) !== undefined)
    .map((s, i) => ({ s, id: `${deployed ? 'p' : ''}${name[0]}${i}`, skip: noRealNodes ? `no real node here: ${noRealNodes}` : skipReason(s, gates, deployed) }))
    .filter((p) => selected(p.s));
  const ordered = [...plan.filter((p) => !p.s.tags.includes('Serial')), ...plan.filter((p) => p.s.tags.includes('Serial'))];
  for (const { s, id, skip } of ordered) {
    const title = `${s.feature}: ${s.title}`;
    if (skip) {
      outcomes.push({ scenario: title, state: 'skipped', detail: skip });
      // Concurrent like its neighbours: a sequential test between concurrent ones would split them into groups.
      (s.tags.includes('Serial') ? it.skip : it.concurrent.skip)(`${title} [skipped: ${skip}]`, () => undefined);
      continue;
    }
    const run = async (): Promise<void> => {
      if (!profile) throw new Error('the profile did not start');
      const started = Date.now();
      try {
        await runScenario(profile, s, id);
        outcomes.push({ scenario: title, state: 'passed', seconds: Math.round((Date.now() - started) / 1000) });
      } catch (err) {
        outcomes.push({ scenario: title, state: 'failed', seconds: Math.round((Date.now() - started) / 1000), detail: (err as Error).message });
        throw err;
      }
    };
    if (s.tags.includes('Serial')) it(title, run, SCENARIO_TIMEOUT_MS);
    else it.concurrent(title, run, SCENARIO_TIMEOUT_MS);
  }
}
