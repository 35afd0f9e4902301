// The vendored e2e features (test/e2e/features) and our step definitions agree: every step of every scenario a
// profile runs has a definition, and every skipped scenario says why. Runs without a cluster.
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../e2e/support/gherkin.ts';
import { PROFILES, tagGates } from '../e2e/support/profile.ts';
import { needsPods, skipReason } from '../e2e/support/runner.ts';
import { matchStep } from '../e2e/steps/steps.ts';

const scenarios = loadScenarios();

describe('e2e features', () => {
  it('parses all 13 upstream feature files into their scenarios (outline rows included)', () => {
    expect(new Set(scenarios.map((s) => s.feature)).size).toBe(13);
    expect(scenarios.length).toBe(65);
    expect(new Set(scenarios.map((s) => `${s.feature}: ${s.title}`)).size).toBe(scenarios.length);
  });

  for (const name of ['standard', 'experimental'] as const) {
    for (const deployed of [false, true]) {
      it(`${name}${deployed ? '-pods' : ''}: every step of every scenario it runs has a step definition`, () => {
        const gates = tagGates(PROFILES[name]);
        const unmatched = scenarios
          .filter((s) => (!deployed || needsPods(s) !== undefined) && !skipReason(s, gates, deployed))
          .flatMap((s) => s.steps.filter((st) => !matchStep(st.text)).map((st) => `${s.location}: ${st.text}`));
        expect(unmatched).toEqual([]);
      });
    }
  }

  it('runs every scenario that needs Pods in a deployed profile, and no other', () => {
    const pods = scenarios.filter((s) => needsPods(s) !== undefined).map((s) => s.feature);
    expect(new Set(pods)).toEqual(new Set(['metrics', 'tls', 'proxy', 'ha', 'install']));
  });

  it('a step matches its first definition with upstream captures', () => {
    const m = matchStep('ClusterObjectSet "${NAME}-1" reports Available as False with Reason ProbeFailure and Message:');
    expect(m?.captures).toEqual(['${NAME}-1', 'Available', 'False', 'ProbeFailure']);
    expect(matchStep('clusterextension IS AVAILABLE')).toBeDefined();
    expect(matchStep('olm is available')).toBeUndefined();
  });
});
