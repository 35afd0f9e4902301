import { describe, expect, it } from 'vitest';
import { dns1123LabelErrors, dns1123SubdomainErrors, regexError } from './validation.ts';

describe('apimachinery name validation', () => {
  it('IsDNS1123Label: valid names and the exact message', () => {
    for (const ok of ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '1-2', 'a'.repeat(63)]) expect(dns1123LabelErrors(ok)).toEqual([]);
    expect(dns1123LabelErrors('A')).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(dns1123LabelErrors('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(dns1123LabelErrors('a.b')).toEqual(['must not contain dots']);
  });

  it('IsDNS1123Subdomain: valid names, the exact message, the length in bytes', () => {
    for (const ok of ['a', 'a.b', 'a-1.b-2', '1.a', 'a'.repeat(253)]) expect(dns1123SubdomainErrors(ok)).toEqual([]);
    expect(dns1123SubdomainErrors('a..b')).toEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(dns1123SubdomainErrors('é'.repeat(127))).toHaveLength(2);
  });

  it('RegexError without examples', () => {
    expect(regexError('must be x', 'x')).toBe("must be x (regex used for validation is 'x')");
  });
});
