import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '../../../api/operators/index.ts';
import { crdOwnerConflict, isBeingReplaced, lastInReplacementChain, replacedName, replacementChain } from './replace.ts';

const csv = (name: string, replaces?: string, owned: string[] = [], extra: Partial<ClusterServiceVersion> = {}): ClusterServiceVersion => ({
  metadata: { name, namespace: 'ns' },
  spec: {
    displayName: name,
    install: { strategy: 'deployment' },
    ...(replaces !== undefined && { replaces }),
    customresourcedefinitions: { owned: owned.map((n) => ({ name: n, version: 'v1', kind: 'K' })) },
  },
  ...extra,
});

// upstream lib/csv replace_finder_test.go and olm operator_test.go TestIsReplacing / TestIsBeingReplaced / getReplacementChain.
describe('replacement', () => {
  it('isBeingReplaced: the CSV whose spec.replaces names this one; copies and self references ignored', () => {
    const a = csv('a');
    expect(isBeingReplaced(a, [a, csv('b', 'a')])?.metadata.name).toBe('b');
    expect(isBeingReplaced(a, [csv('a', 'a')])).toBeUndefined();
    expect(isBeingReplaced(a, [{ ...csv('b', 'a'), status: { reason: 'Copied' } }])).toBeUndefined();
  });

  it('replacedName: undefined when absent or self', () => {
    expect(replacedName(csv('b', 'a'))).toBe('a');
    expect(replacedName(csv('a', 'a'))).toBeUndefined();
    expect(replacedName(csv('a'))).toBeUndefined();
  });

  it('the replacement chain goes forwards and backwards and stops at cycles', () => {
    const all = [csv('a'), csv('b', 'a'), csv('c', 'b'), csv('x')];
    expect([...replacementChain(all[1]!, all)].sort()).toEqual(['a', 'b', 'c']);
    const cycle = [csv('a', 'c'), csv('b', 'a'), csv('c', 'b')];
    expect([...replacementChain(cycle[0]!, cycle)].sort()).toEqual(['a', 'b', 'c']);
  });

  it('a CRD owned by a CSV outside the chain conflicts; inside it does not', () => {
    const all = [csv('a', undefined, ['w.example.com']), csv('b', 'a', ['w.example.com']), csv('other', undefined, ['w.example.com'])];
    expect(crdOwnerConflict(all[1]!, all.slice(0, 2))).toBe(false);
    expect(crdOwnerConflict(all[1]!, all)).toBe(true);
  });

  it('the last CSV of a chain of replacers (fail-forward), each seen once', () => {
    const all = [csv('a'), csv('b', 'a'), csv('c', 'b')];
    expect(lastInReplacementChain(all[1]!, all).metadata.name).toBe('c');
    expect(lastInReplacementChain(all[2]!, all).metadata.name).toBe('c');
    const cycle = [csv('a', 'b'), csv('b', 'a')];
    expect(() => lastInReplacementChain(cycle[0]!, cycle)).toThrow('csv ns/a has already been seen');
  });
});
