import { describe, expect, it } from 'vitest';
import type { InstallPlan } from '../../../api/operators/index.ts';
import { gcInstallPlans, installPlansToDelete } from './gc.ts';

const ip = (name: string, generation: number, created = '2026-01-01T00:00:00Z'): InstallPlan => ({
  metadata: { name, namespace: 'ns', creationTimestamp: created },
  spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: [], generation },
});
const names = (l: InstallPlan[]): string[] => l.map((p) => p.metadata.name!);

describe('installPlansToDelete (gcInstallPlans)', () => {
  it('keeps up to 5 untouched', () => {
    expect(installPlansToDelete([1, 2, 3, 4, 5].map((g) => ip(`p${g}`, g)))).toEqual([]);
  });

  it('deletes the oldest generations first', () => {
    expect(names(installPlansToDelete([7, 3, 5, 1, 2, 6, 4].map((g) => ip(`p${g}`, g))))).toEqual(['p1', 'p2']);
  });

  it('at most 5 deletions per sweep; sweeps converge on the 5 newest', () => {
    let plans = Array.from({ length: 13 }, (_, i) => ip(`p${i + 1}`, i + 1));
    const first = installPlansToDelete(plans);
    expect(names(first)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    plans = plans.filter((p) => !first.includes(p));
    const second = installPlansToDelete(plans);
    expect(second).toHaveLength(3);
    plans = plans.filter((p) => !second.includes(p));
    expect(names(plans)).toEqual(['p9', 'p10', 'p11', 'p12', 'p13']);
    expect(installPlansToDelete(plans)).toEqual([]);
  });

  it('within one generation: oldest creationTimestamp first, then name', () => {
    const plans = [
      ip('b', 1, '2026-01-01T00:00:02Z'),
      ip('a', 1, '2026-01-01T00:00:02Z'),
      ip('c', 1, '2026-01-01T00:00:01Z'),
      ip('d', 2),
      ip('e', 3),
      ip('f', 4),
      ip('g', 5),
    ];
    expect(names(installPlansToDelete(plans))).toEqual(['c', 'a']);
  });

  it('the newest generation is always kept', () => {
    for (let n = 6; n < 20; n++) {
      let plans = Array.from({ length: n }, (_, i) => ip(`p${i}`, (i * 7) % n));
      const max = Math.max(...plans.map((p) => p.spec.generation ?? 0));
      while (plans.length > 5) {
        const del = installPlansToDelete(plans);
        expect(del.length).toBeGreaterThan(0);
        expect(del.length).toBeLessThanOrEqual(5);
        plans = plans.filter((p) => !del.includes(p));
      }
      expect(plans.some((p) => p.spec.generation === max)).toBe(true);
    }
  });

  it('gcInstallPlans deletes what the sweep picks and logs a failed delete', async () => {
    const deleted: string[] = [];
    const warned: string[] = [];
    const plans = Array.from({ length: 7 }, (_, i) => ip(`p${i}`, i));
    const out = await gcInstallPlans(
      {
        list: () => plans,
        delete: async (_ns, name) => {
          if (name === 'p1') throw new Error('gone');
          deleted.push(name);
        },
        logger: { warn: (msg) => warned.push(msg) },
      },
      'ns',
    );
    expect(out).toEqual(['p0']);
    expect(deleted).toEqual(['p0']);
    expect(warned).toEqual(['error GCing old installplan - may have already been deleted']);
  });
});
