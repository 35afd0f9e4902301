import { describe, expect, it } from 'vitest';
import { GoJSONSyntaxError, goJSONField, goJSONParse } from './json-decode.ts';

const syntaxError = (text: string): string => {
  try {
    goJSONParse(text);
  } catch (err) {
    expect(err).toBeInstanceOf(GoJSONSyntaxError);
    return (err as Error).message;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
};

describe('goJSONParse', () => {
  it.each([
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['tru', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ["'", "invalid character '\\'' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul1', "invalid character '1' in literal null (expecting 'l')"],
    ['01', "invalid character '1' after top-level value"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['1.a', "invalid character 'a' after decimal point in numeric literal"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['1ea', "invalid character 'a' in exponent of numeric literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"a\u0000"', "invalid character '\\x00' in string literal"],
    ['{"a":1}\u00e9', "invalid character 'Ã' after top-level value"],
  ])('%j → %s', (text, message) => {
    expect(syntaxError(text)).toBe(message);
  });

  it('keeps every value’s raw text, as json.RawMessage receives it', () => {
    const v = goJSONParse(' {"properties":[{"type":"olm.maxOpenShiftVersion","value": 4.80 },{"type":"x","value":{ "a" : [1, 2] }}]} ');
    expect(v.kind).toBe('object');
    if (v.kind !== 'object') return;
    const props = goJSONField(v, 'properties');
    expect(props?.kind).toBe('array');
    if (props?.kind !== 'array') return;
    const values = props.items.map((p) => (p.kind === 'object' ? goJSONField(p, 'value')?.raw : undefined));
    expect(values).toEqual(['4.80', '{ "a" : [1, 2] }']);
    expect(props.items[0]!.kind === 'object' && goJSONField(props.items[0]!, 'type')).toMatchObject({ kind: 'string', value: 'olm.maxOpenShiftVersion' });
  });

  it('a field takes the last key equal to its name under case folding', () => {
    const v = goJSONParse('{"Properties":1,"properties":2,"PROPERTIES":3,"other":4}');
    expect(v.kind === 'object' && goJSONField(v, 'properties')?.raw).toBe('3');
    expect(v.kind === 'object' && goJSONField(v, 'missing')).toBeUndefined();
  });

  it('decodes escapes in strings', () => {
    expect(goJSONParse('"a\\u00e9\\n\\"b"')).toEqual({ kind: 'string', raw: '"a\\u00e9\\n\\"b"', value: 'aé\n"b' });
  });
});
