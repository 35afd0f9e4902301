import { describe, expect, it } from 'vitest';
import type { LabelSelector } from '../../../api/meta/v1.ts';
import { LabelSelectorError, labelSelectorAsSelector } from './labels.ts';

const QNAME =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LVALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('labelSelectorAsSelector errors (apimachinery texts)', () => {
  it.each<{ name: string; selector: LabelSelector; message: string }>([
    {
      name: 'unknown operator',
      selector: { matchExpressions: [{ key: 'name', operator: 'bad' as 'In', values: ['value'] }] },
      message: '"bad" is not a valid label selector operator',
    },
    { name: 'empty key', selector: { matchLabels: { '': 'value' } }, message: `key: Invalid value: "": name part must be non-empty; name part ${QNAME}` },
    { name: 'bad value', selector: { matchLabels: { name: '&value' } }, message: `values[0][name]: Invalid value: "&value": ${LVALUE}` },
    {
      name: 'In without values',
      selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    },
    {
      name: 'Exists with values',
      selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    },
    {
      name: 'bad prefix and bad value together',
      selector: { matchExpressions: [{ key: 'Foo/a', operator: 'In', values: ['-x'] }] },
      message: `[key: Invalid value: "Foo/a": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), values[0][Foo/a]: Invalid value: "-x": ${LVALUE}]`,
    },
  ])('$name', ({ selector, message }) => {
    expect(() => labelSelectorAsSelector(selector)).toThrow(LabelSelectorError);
    expect(() => labelSelectorAsSelector(selector)).toThrow(message);
    try {
      labelSelectorAsSelector(selector);
    } catch (err) {
      expect((err as Error).message).toBe(message);
    }
  });
});

describe('labelSelectorAsSelector matching', () => {
  const labels = { 'olm.operatorframework.io/metadata.name': 'a', tier: 'gold' };
  it.each<{ name: string; selector: LabelSelector | undefined; want: boolean }>([
    { name: 'absent selects nothing', selector: undefined, want: false },
    { name: 'empty selects everything', selector: {}, want: true },
    { name: 'matchLabels hit', selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': 'a' } }, want: true },
    { name: 'matchLabels miss', selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': 'b' } }, want: false },
    { name: 'In', selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['silver', 'gold'] }] }, want: true },
    { name: 'NotIn', selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['gold'] }] }, want: false },
    { name: 'NotIn on a missing key', selector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] }, want: true },
    { name: 'Exists', selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, want: true },
    { name: 'DoesNotExist', selector: { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, want: false },
    {
      name: 'all requirements must hold',
      selector: { matchLabels: { tier: 'gold' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] },
      want: false,
    },
  ])('$name', ({ selector, want }) => {
    expect(labelSelectorAsSelector(selector).matches(labels)).toBe(want);
  });
});
