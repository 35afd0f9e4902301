// The vendored e2e features (test/e2e/features) and our step definitions agree: every step of every scenario a
// profile runs has a definition, and every skipped scenario says why. Runs without a cluster.
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../e2e/support/gherkin.ts';
import { PROFILES, tagGates } from '../e2e/support/profile.ts';
import { skipReason } from '../e2e/support/runner.ts';
import { matchStep } from '../e2e/steps/steps.ts';

const scenarios = loadScenarios();

describe('e2e features', () => {
  it('parses all 13 upstream feature files into their scenarios (outline rows included)', () => {
    expect(new Set(scenarios.map((s) => s.feature)).size).toBe(13);
    expect(scenarios.length).toBe(65);
    expect(new Set(scenarios.map((s) => `${s.feature}: ${s.title}`)).size).toBe(scenarios.length);
  });

  for (const name of ['standard', 'experimental'] as const) {
    it(`${name}: every step of every scenario it runs has a step definition`, () => {
      const gates = tagGates(PROFILES[name]);
      const unmatched = scenarios
        .filter((s) => !skipReason(s, gates))
        .flatMap((s) => s.steps.filter((st) => !matchStep(st.text)).map((st) => `${s.location}: ${st.text}`));
      expect(unmatched).toEqual([]);
    });
  }

  it('a step matches its first definition with upstream captures', () => {
    const m = matchStep('ClusterObjectSet "${NAME}-1" reports Available as False with Reason ProbeFailure and Message:');
    expect(m?.captures).toEqual(['${NAME}-1', 'Available', 'False', 'ProbeFailure']);
    expect(matchStep('clusterextension IS AVAILABLE')).toBeDefined();
    expect(matchStep('olm is available')).toBeUndefined();
  });
});
