import { describe, expect, it } from 'vitest';
import type { LabelSelector } from '../../../api/meta/v1.ts';
import { LabelSelectorError, labelSelectorAsSelector, parseLabelSelector, parseSelector } from './labels.ts';

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

// metav1.ParseToLabelSelector over apimachinery's parser: cases of TestSelectorParse / TestSetSelectorParser.
describe('parseLabelSelector', () => {
  it.each([
    ['', {}],
    ['x=a,y=b,z=c', { matchLabels: { x: 'a', y: 'b', z: 'c' } }],
    ['x==a', { matchLabels: { x: 'a' } }],
    ['x=', { matchLabels: { x: '' } }],
    ['x= ,z= ', { matchLabels: { x: '', z: '' } }],
    ['!x', { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }],
    ['\rx', { matchExpressions: [{ key: 'x', operator: 'Exists' }] }],
    ['this-is-another-dns.domain.com/key-with-dash in (so,what)', { matchExpressions: [{ key: 'this-is-another-dns.domain.com/key-with-dash', operator: 'In', values: ['so', 'what'] }] }],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', { matchExpressions: [{ key: '0.1.2.domain/99', operator: 'NotIn', values: ['10.10.100.1', 'tick.tack.clock'] }] }],
    ['x in (a,,a,,a,,a,,)', { matchExpressions: [{ key: 'x', operator: 'In', values: ['', 'a'] }] }],
    ['x in ()', { matchExpressions: [{ key: 'x', operator: 'In', values: [''] }] }],
    [
      'x notin (abc,,def),bar,z in (),w',
      {
        matchExpressions: [
          { key: 'bar', operator: 'Exists' },
          { key: 'w', operator: 'Exists' },
          { key: 'x', operator: 'NotIn', values: ['', 'abc', 'def'] },
          { key: 'z', operator: 'In', values: [''] },
        ],
      },
    ],
    ['a in (x,y,notin, z,in)', { matchExpressions: [{ key: 'a', operator: 'In', values: ['in', 'notin', 'x', 'y', 'z'] }] }],
    ['notin=in', { matchLabels: { notin: 'in' } }],
    ['env=prod,tier in (a)', { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }],
  ])('%j', (text, want) => expect(parseLabelSelector(text)).toEqual(want));

  it.each([
    ['x=a||y=b', `couldn't parse the selector string "x=a||y=b": unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LVALUE}`],
    ['x==a==b', `couldn't parse the selector string "x==a==b": found '==', expected: ',' or 'end of string'`],
    ['!x=a', `couldn't parse the selector string "!x=a": found '=', expected: ',' or 'end of string'`],
    ['x,,y', `couldn't parse the selector string "x,,y": found ',', expected: identifier after ','`],
    [',x,y', `couldn't parse the selector string ",x,y": found ',', expected: !, identifier, or 'end of string'`],
    ['x nott in (y)', `couldn't parse the selector string "x nott in (y)": unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt`],
    ['a in (xyz),', `couldn't parse the selector string "a in (xyz),": found '', expected: identifier after ','`],
    ['a in b', `couldn't parse the selector string "a in b": unable to parse requirement: found 'b' expected: '('`],
    ['x<a', `couldn't parse the selector string "x<a": unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>1', `"gt" isn't supported in label selectors`],
    ['x!=a', `"!=" is not a valid label selector operator`],
    ['a_=b', `couldn't parse the selector string "a_=b": unable to parse requirement: <nil>: Invalid value: "a_": name part ${QNAME}`],
  ])('%j is refused', (text, message) => {
    expect(() => parseLabelSelector(text)).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector(text)).toThrow(message);
  });
});

describe('parseSelector (labels.Parse)', () => {
  const labels = { catalog: 'demo', tier: '3', 'operatorframework.io/arch.amd64': 'supported' };
  it('every operator a list request takes', () => {
    const yes = ['', 'catalog=demo', 'catalog==demo', 'catalog!=other', 'missing!=x', 'catalog in (a,demo)', 'catalog notin (a)', 'catalog', '!missing', 'tier>2', 'tier<4', 'catalog=demo,tier'];
    const no = ['catalog=other', 'catalog!=demo', 'catalog in (a)', 'catalog notin (demo)', 'missing', '!catalog', 'tier>3', 'catalog>1', 'catalog=demo,missing'];
    for (const s of yes) expect(parseSelector(s).matches(labels), s).toBe(true);
    for (const s of no) expect(parseSelector(s).matches(labels), s).toBe(false);
    expect(parseSelector('').empty).toBe(true);
  });
  it('refuses what labels.Parse refuses, in its words (no ParseToLabelSelector prefix: the API server’s 400 has none)', () => {
    expect(() => parseSelector('a in b')).toThrow(LabelSelectorError);
    expect(() => parseSelector('a in b')).toThrow(new LabelSelectorError("unable to parse requirement: found 'b' expected: '('"));
    expect(() => parseSelector('x,,y')).toThrow(new LabelSelectorError("found ',', expected: identifier after ','"));
  });
});
