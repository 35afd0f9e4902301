import { describe, expect, it } from 'vitest';
import { parseWarningHeader } from './transport.ts';

describe('parseWarningHeader', () => {
  it('splits what the API server sends: 299, agent -, quoted text', () => {
    expect(parseWarningHeader('299 - "policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+"')).toEqual({
      code: 299,
      agent: '-',
      text: 'policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+',
    });
  });

  it('unescapes quoted characters and ignores a trailing date', () => {
    expect(parseWarningHeader('299 - "unknown field \\"spec.foo\\"" "Tue, 15 Nov 1994 08:12:31 GMT"')).toEqual({
      code: 299,
      agent: '-',
      text: 'unknown field "spec.foo"',
    });
  });

  it('keeps a value that is not a warning header as text, with code 0', () => {
    expect(parseWarningHeader('something else')).toEqual({ code: 0, agent: '', text: 'something else' });
  });
});
