import { describe, expect, it } from 'vitest';
import { fnv64a } from '../../shared/toolkit/index.ts';
import { alongsideFromAnnotations, alongsideKey, alongsideToAnnotations, installedAlongside } from './alongside.ts';

describe('installed-alongside annotations', () => {
  it('one key per CSV, `<ns>/<name>` as the value', () => {
    expect(alongsideKey({ namespace: 'ns', name: 'a.v1' })).toBe(`operatorframework.io/installed-alongside-${fnv64a('ns/a.v1').toString(16)}`);
    expect(alongsideToAnnotations({ other: 'x', [alongsideKey({ namespace: 'o', name: 'old' })]: 'o/old' }, [{ namespace: 'ns', name: 'a.v1' }])).toEqual({
      other: 'x',
      [alongsideKey({ namespace: 'ns', name: 'a.v1' })]: 'ns/a.v1',
    });
  });
  it('reading skips values that are not namespace/name; writing nothing on nothing leaves no annotations', () => {
    expect(alongsideFromAnnotations({ 'operatorframework.io/installed-alongside-0': 'namespace/name/color', 'operatorframework.io/installed-alongside-1': 'n/x' })).toEqual([
      { namespace: 'n', name: 'x' },
    ]);
    expect(alongsideToAnnotations({ 'operatorframework.io/installed-alongside-0': 'namespace/name' }, [])).toBeUndefined();
  });
  it('keeps references to CSVs that exist and are not copies (or could not be looked up), then adds this CSV', async () => {
    const sources = [
      { k1: 'x', [alongsideKey({ namespace: 'a', name: 'kept' })]: 'a/kept', [alongsideKey({ namespace: 'a', name: 'gone' })]: 'a/gone' },
      { [alongsideKey({ namespace: 'b', name: 'copy' })]: 'b/copy', [alongsideKey({ namespace: 'c', name: 'err' })]: 'c/err', [alongsideKey({ namespace: 'ns', name: 'me' })]: 'ns/me' },
    ];
    const presence = { 'a/kept': 'present', 'a/gone': 'missing', 'b/copy': 'copied', 'c/err': 'unknown' } as const;
    const refs = await installedAlongside('ns', 'me', sources, async (nn) => presence[`${nn.namespace}/${nn.name}` as keyof typeof presence]);
    expect(refs).toEqual([
      { namespace: 'a', name: 'kept' },
      { namespace: 'c', name: 'err' },
      { namespace: 'ns', name: 'me' },
    ]);
  });
});
