import { describe, expect, it } from 'vitest';
import { fieldSelectorString, labelSelectorString } from './selectors.ts';

describe('selectors', () => {
  it.each([
    { name: 'labels sorted by key', sel: { matchLabels: { b: '2', a: '1' } }, want: 'a=1,b=2' },
    {
      name: 'expressions, values sorted',
      sel: {
        matchExpressions: [
          { key: 'tier', operator: 'In' as const, values: ['web', 'api'] },
          { key: 'env', operator: 'NotIn' as const, values: ['prod'] },
          { key: 'owned', operator: 'Exists' as const },
          { key: 'legacy', operator: 'DoesNotExist' as const },
        ],
      },
      want: 'tier in (api,web),env notin (prod),owned,!legacy',
    },
    { name: 'empty selects everything', sel: {}, want: '' },
  ])('label selector: $name', ({ sel, want }) => {
    expect(labelSelectorString(sel)).toBe(want);
  });

  it('escapes field selector values', () => {
    expect(fieldSelectorString({ 'metadata.name': 'a,b=c\\d', 'metadata.namespace': 'ns' })).toBe('metadata.name=a\\,b\\=c\\\\d,metadata.namespace=ns');
  });
});
