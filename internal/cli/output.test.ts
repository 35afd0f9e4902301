import { describe, expect, it } from 'vitest';
import { age, conditionStatus, json, listOf, objectName, outputFormat, shown, table, yaml } from './output.ts';
import { CliUsageError } from './types.ts';

describe('table (text/tabwriter, minwidth 3, padding 2)', () => {
  it('pads every column but the last to its widest cell plus two', () => {
    expect(table(['NAME', 'AVAILABILITY', 'PRIORITY', 'LASTUNPACKED', 'SERVING', 'AGE'], [['operatorhubio', 'Available', '0', '44m', 'True', '44m']])).toBe(
      'NAME           AVAILABILITY  PRIORITY  LASTUNPACKED  SERVING  AGE\n' + 'operatorhubio  Available     0         44m           True     44m\n',
    );
  });

  it('gives a narrow column the minimum width and counts characters, not bytes', () => {
    expect(table(['A', 'B'], [['é', 'x']])).toBe('A  B\né  x\n');
  });
});

describe('output', () => {
  it('-o accepts the listed formats; empty is table', () => {
    expect(outputFormat(undefined)).toBe('table');
    expect(outputFormat('')).toBe('table');
    expect(outputFormat('name')).toBe('name');
    expect(() => outputFormat('wide')).toThrow(new CliUsageError('unrecognized output format "wide": must be one of (table, json, yaml, name)'));
    expect(() => outputFormat('name', ['table', 'json'])).toThrow('must be one of (table, json)');
  });

  it('AGE is kubectl’s, from a timestamp', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(age('2026-11-25T09:56:50Z', now)).toBe('3m10s');
    expect(age('2026-11-23T09:00:00Z', now)).toBe('2d1h');
    expect(age(undefined, now)).toBe('<unknown>');
  });

  it('conditionStatus is Unknown for an absent condition', () => {
    expect(conditionStatus([{ type: 'Serving', status: 'True', reason: 'Available', message: '', lastTransitionTime: '' }], 'Serving')).toBe('True');
    expect(conditionStatus(undefined, 'Serving')).toBe('Unknown');
  });

  it('json is Go’s 4-space indent; yaml sorts keys; managedFields are hidden; lists are <Kind>List', async () => {
    const obj = { kind: 'ClusterExtension', apiVersion: 'olm.operatorframework.io/v1', metadata: { name: 'x', managedFields: [{ manager: 'm' }] }, spec: { z: 1, a: 2 } };
    expect(shown(obj).metadata).toEqual({ name: 'x' });
    expect(json({ a: [1] })).toBe('{\n    "a": [\n        1\n    ]\n}\n');
    expect(await yaml(shown(obj))).toBe('apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: x\nspec:\n  a: 2\n  z: 1\n');
    expect(listOf('olm.operatorframework.io/v1', 'ClusterExtension', [obj])).toEqual({
      kind: 'ClusterExtensionList',
      apiVersion: 'olm.operatorframework.io/v1',
      metadata: {},
      items: [{ ...obj, metadata: { name: 'x' } }],
    });
    expect(objectName('clusterextension', 'olm.operatorframework.io', 'x')).toBe('clusterextension.olm.operatorframework.io/x');
  });
});
