import { describe, expect, it } from 'vitest';
import { goJSONMarshal } from './json.ts';

describe('goJSONMarshal', () => {
  it('escapes what encoding/json escapes', () => {
    expect(goJSONMarshal({ verbs: ['get'], nonResourceURLs: ['/a<b>&c\u2028'] })).toBe('{"verbs":["get"],"nonResourceURLs":["/a\\u003cb\\u003e\\u0026c\\u2028"]}');
  });
  it('leaves the rest as JSON.stringify writes it', () => {
    expect(goJSONMarshal({ a: 'é"\n', b: null, c: 1.5 })).toBe('{"a":"é\\"\\n","b":null,"c":1.5}');
  });
});
