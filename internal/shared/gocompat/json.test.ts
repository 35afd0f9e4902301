import { describe, expect, it } from 'vitest';
import { goJSONString, goJSONValue } from './index.ts';

describe('goJSONString', () => {
  it('escapes <, > and & as json.Marshal does, and U+2028/U+2029 always', () => {
    expect(goJSONString('a<b>&c\u2028\u2029')).toBe('"a\\u003cb\\u003e\\u0026c\\u2028\\u2029"');
    expect(goJSONString('a<b>&c\u2028', { html: false })).toBe('"a<b>&c\\u2028"');
  });
});

describe('goJSONValue', () => {
  it('writes compact JSON, keys in insertion order unless sorted', () => {
    expect(goJSONValue({ b: 1, a: ['x', true, null] })).toBe('{"b":1,"a":["x",true,null]}');
    expect(goJSONValue({ b: 1, a: 2 }, true)).toBe('{"a":2,"b":1}');
  });
});
