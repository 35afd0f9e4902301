import { describe, expect, it } from 'vitest';
import { componentLabelKey, componentLabelSelector, operatorNames, packageOperatorName } from './names.ts';

describe('packageOperatorName', () => {
  it('is <package>.<namespace>, the package alone without a namespace', () => {
    expect(packageOperatorName('etcd', 'operators')).toBe('etcd.operators');
    expect(packageOperatorName('etcd', '')).toBe('etcd');
  });
});

describe('componentLabelKey', () => {
  it('is operators.coreos.com/<name>', () => {
    expect(componentLabelKey('etcd.operators')).toBe('operators.coreos.com/etcd.operators');
  });
  it('keeps a name of 63 characters whole', () => {
    const name = 'a'.repeat(63);
    expect(componentLabelKey(name)).toBe(`operators.coreos.com/${name}`);
  });
  it('cuts a longer name to 63 characters, then drops trailing dots, dashes and underscores', () => {
    expect(componentLabelKey(`${'a'.repeat(63)}bcd`)).toBe(`operators.coreos.com/${'a'.repeat(63)}`);
    expect(componentLabelKey(`${'a'.repeat(60)}.-_xyz`)).toBe(`operators.coreos.com/${'a'.repeat(60)}`);
    expect(componentLabelKey(`${'a'.repeat(61)}b.c`)).toBe(`operators.coreos.com/${'a'.repeat(61)}b`);
  });
  it('refuses an empty name and one that is only separators where cut', () => {
    expect(() => componentLabelKey('')).toThrow('cannot generate component label key: empty name field');
    expect(() => componentLabelKey('.'.repeat(64))).toThrow('cannot generate component label key: unsupported name field');
  });
});

describe('componentLabelSelector', () => {
  it('selects objects carrying the key', () => {
    expect(componentLabelSelector('etcd.ns')).toEqual({ matchExpressions: [{ key: 'operators.coreos.com/etcd.ns', operator: 'Exists' }] });
  });
});

describe('operatorNames', () => {
  it('names every Operator whose key a label set holds', () => {
    expect(operatorNames({ 'operators.coreos.com/a.ns': '', 'olm.managed': 'true', 'operators.coreos.com/b.ns': '' }).sort()).toEqual(['a.ns', 'b.ns']);
    expect(operatorNames(undefined)).toEqual([]);
  });
});
