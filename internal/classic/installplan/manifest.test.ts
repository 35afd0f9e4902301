import { describe, expect, it } from 'vitest';
import { decodeManifest } from './manifest.ts';

const refusal = (manifest: string): string => {
  try {
    decodeManifest(manifest);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`accepted: ${manifest}`);
};

describe('decodeManifest', () => {
  it('reads JSON and YAML objects', () => {
    expect(decodeManifest('{"kind":"ConfigMap"}')).toEqual({ kind: 'ConfigMap' });
    expect(decodeManifest('kind: ConfigMap\nmetadata:\n  name: x\n')).toEqual({ kind: 'ConfigMap', metadata: { name: 'x' } });
  });

  it('a document starting with { is JSON: Go’s json.Unmarshal texts', () => {
    expect(refusal('{not json')).toBe("invalid character 'n' looking for beginning of object key string");
    expect(refusal('  {"a": ')).toBe('unexpected end of JSON input');
  });

  it('every error is one line', () => {
    for (const m of ['{not json', 'a: b\n c: : d\n', '- 1\n- 2\n', 'x\ny\n', '[1,\n']) expect(refusal(m)).not.toContain('\n');
    expect(refusal('a: b\n c: : d\n')).toBe('error converting YAML to JSON: yaml: line 2: bad indentation of a mapping entry');
    expect(refusal('- 1\n- 2\n')).toBe('manifest is not an object: - 1 - 2');
  });
});
