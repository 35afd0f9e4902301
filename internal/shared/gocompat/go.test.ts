import { describe, expect, it } from 'vitest';
import { goQuote, goSplitN, goStringSlice, goTrimSpace, isGoSpace } from './go.ts';

describe('goQuote (strconv.Quote)', () => {
  // Cases from Go's strconv quote_test.go (quotetests), as Go prints them.
  it.each([
    ['\x07\b\f\r\n\t\v', '"\\a\\b\\f\\r\\n\\t\\v"'],
    ['\\', '"\\\\"'],
    ['abc\xffdef', '"abc\u00ffdef"'],
    ['\u263a', '"\u263a"'],
    ['\u{10ffff}', '"\\U0010ffff"'],
    ['\x04', '"\\x04"'],
    ['!\u00a0!\u2000!\u3000!', '"!\\u00a0!\\u2000!\\u3000!"'],
    ['\x7f', '"\\x7f"'],
    ['"quoted"', '"\\"quoted\\""'],
    ['', '""'],
    ['plain ascii 123', '"plain ascii 123"'],
  ])('%j → %s', (input, want) => {
    expect(goQuote(input)).toBe(want);
  });

  it('writes a lone surrogate as U+FFFD, the rune Go’s decoders make of it (printable, so unescaped)', () => {
    expect(goQuote('a\ud800b')).toBe('"a\ufffdb"');
    expect(goQuote('\ufffd')).toBe('"\ufffd"');
  });
});

describe('strings helpers', () => {
  it('TrimSpace trims Go’s white space (U+0085, U+00A0, U+3000) but not U+FEFF', () => {
    expect(goTrimSpace(' \t\n\u0085\u00a0x y\u3000\r')).toBe('x y');
    expect(goTrimSpace('\ufeffx')).toBe('\ufeffx');
    expect(isGoSpace(0x85)).toBe(true);
    expect(isGoSpace(0xfeff)).toBe(false);
  });

  it('SplitN keeps the rest in the last part', () => {
    expect(goSplitN('a,b,c', ',', 2)).toEqual(['a', 'b,c']);
    expect(goSplitN('a', ',', 3)).toEqual(['a']);
  });

  it('%v of a []string', () => {
    expect(goStringSlice(['a', 'b'])).toBe('[a b]');
    expect(goStringSlice([])).toBe('[]');
  });
});
