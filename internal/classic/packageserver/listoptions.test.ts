import { describe, expect, it } from 'vitest';
import { decodeListQuery, parseInt64, queryBool } from './listoptions.ts';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

describe('list options as k8s.io/apiserver decodes them', () => {
  it('booleans: present and neither "0" nor "false" (runtime.Convert_Slice_string_To_bool)', () => {
    expect(queryBool(q(''), 'watch')).toBeUndefined();
    for (const v of ['true', '1', 'yes', 'maybe', '']) expect(queryBool(q(`watch=${v}`), 'watch'), v).toBe(true);
    for (const v of ['0', 'false', 'FALSE']) expect(queryBool(q(`watch=${v}`), 'watch'), v).toBe(false);
    expect(decodeListQuery(q('watch=maybe'))).toEqual({ watch: true });
  });
  it('integers by strconv.ParseInt, with its words', () => {
    expect(parseInt64('+5')).toBe(5n);
    expect(() => parseInt64('abc')).toThrow('strconv.ParseInt: parsing "abc": invalid syntax');
    expect(() => parseInt64('9223372036854775808')).toThrow('strconv.ParseInt: parsing "9223372036854775808": value out of range');
    expect(decodeListQuery(q('limit=2&timeoutSeconds=3'))).toEqual({ watch: false, limit: 2n, timeoutSeconds: 3n });
    expect(decodeListQuery(q('limit=x&timeoutSeconds=y'))).toEqual({ error: { code: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "y": invalid syntax' } });
  });
  it('ValidateListOptions: 422 Invalid ListOptions, one error plain, several in brackets', () => {
    expect(decodeListQuery(q('sendInitialEvents=true'))).toEqual({
      error: {
        code: 422,
        reason: 'Invalid',
        message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
        causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list', field: 'sendInitialEvents' }],
      },
    });
    const both = decodeListQuery(q('resourceVersionMatch=Other&continue=c'));
    expect('error' in both && both.error.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, resourceVersionMatch: Unsupported value: "Other": supported values: "Exact", "NotOlderThan", ""]',
    );
    expect(decodeListQuery(q('watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan'))).toEqual({ watch: true });
  });
});
