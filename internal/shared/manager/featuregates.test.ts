import { describe, expect, it } from 'vitest';
import { parseFeatureGates } from './featuregates.ts';

const KNOWN = { A: false, B: true } as const;

describe('parseFeatureGates', () => {
  it('overrides the defaults with Name=bool pairs', () => {
    expect(parseFeatureGates('', KNOWN)).toEqual({ A: false, B: true });
    expect(parseFeatureGates('A=true', KNOWN)).toEqual({ A: true, B: true });
    expect(parseFeatureGates(' A = T , B=0,,', KNOWN)).toEqual({ A: true, B: false });
    expect(parseFeatureGates('A=1,A=False', KNOWN)).toEqual({ A: false, B: true });
  });

  it('refuses what component-base refuses, with its texts', () => {
    expect(() => parseFeatureGates('A', KNOWN)).toThrow('missing bool value for A');
    expect(() => parseFeatureGates('A=yes', KNOWN)).toThrow('invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
    expect(() => parseFeatureGates('C=true', KNOWN)).toThrow('unrecognized feature gate: C');
  });
});
