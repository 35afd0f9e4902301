import { describe, expect, it } from 'vitest';
import { canonicalQuantity, canonicalizeResources } from './quantity.ts';

describe('canonicalQuantity (resource.Quantity.String after ParseQuantity)', () => {
  it.each([
    ['100m', '100m'],
    ['1000m', '1'],
    ['1500m', '1500m'],
    ['0.5', '500m'],
    [0.5, '500m'],
    [2, '2'],
    ['12000', '12k'],
    ['1500', '1500'],
    ['128Mi', '128Mi'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['0.5Ki', '512'],
    ['1Ki', '1Ki'],
    ['1.5Ki', '1536'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['0', '0'],
    ['0Mi', '0'],
    ['-1000m', '-1'],
    ['1n', '1n'],
    ['0.1n', '1n'],
    ['2G', '2G'],
  ])('%s → %s', (input, want) => {
    expect(canonicalQuantity(input)).toBe(want);
  });
  it('leaves what is not a quantity', () => {
    expect(canonicalQuantity('abc')).toBeUndefined();
    expect(canonicalQuantity('1Xi')).toBeUndefined();
    expect(canonicalQuantity({})).toBeUndefined();
  });
  it('canonicalizes limits and requests', () => {
    const r = { limits: { cpu: '1000m', memory: '1024Mi' }, requests: { cpu: 0.25 }, claims: [{ name: 'x' }] };
    canonicalizeResources(r);
    expect(r).toEqual({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '250m' }, claims: [{ name: 'x' }] });
  });
});
