import { describe, expect, it } from 'vitest';
import { InvalidReferenceError } from './errors.ts';
import { canonicalReference, formatReference, parseReference, registryApiHost } from './reference.ts';

const HEX = 'a'.repeat(64);

describe('parseReference', () => {
  it.each([
    { in: 'busybox', domain: 'docker.io', path: 'library/busybox', tag: 'latest', out: 'docker.io/library/busybox:latest' },
    { in: 'busybox:1.36', domain: 'docker.io', path: 'library/busybox', tag: '1.36', out: 'docker.io/library/busybox:1.36' },
    { in: 'library/busybox', domain: 'docker.io', path: 'library/busybox', tag: 'latest', out: 'docker.io/library/busybox:latest' },
    { in: 'someuser/app', domain: 'docker.io', path: 'someuser/app', tag: 'latest', out: 'docker.io/someuser/app:latest' },
    { in: 'docker.io/busybox', domain: 'docker.io', path: 'library/busybox', tag: 'latest', out: 'docker.io/library/busybox:latest' },
    { in: 'index.docker.io/busybox', domain: 'docker.io', path: 'library/busybox', tag: 'latest', out: 'docker.io/library/busybox:latest' },
    { in: 'quay.io/operatorhubio/catalog:latest', domain: 'quay.io', path: 'operatorhubio/catalog', tag: 'latest', out: 'quay.io/operatorhubio/catalog:latest' },
    { in: 'localhost/foo', domain: 'localhost', path: 'foo', tag: 'latest', out: 'localhost/foo:latest' },
    { in: 'localhost:5000/a/b/c:v1', domain: 'localhost:5000', path: 'a/b/c', tag: 'v1', out: 'localhost:5000/a/b/c:v1' },
    { in: '127.0.0.1:5000/cat:v1', domain: '127.0.0.1:5000', path: 'cat', tag: 'v1', out: '127.0.0.1:5000/cat:v1' },
    { in: '[::1]:5000/cat', domain: '[::1]:5000', path: 'cat', tag: 'latest', out: '[::1]:5000/cat:latest' },
    { in: 'Registry/cat', domain: 'Registry', path: 'cat', tag: 'latest', out: 'Registry/cat:latest' },
    { in: 'r.io/a__b/c-d/e.f:T_1.2-x', domain: 'r.io', path: 'a__b/c-d/e.f', tag: 'T_1.2-x', out: 'r.io/a__b/c-d/e.f:T_1.2-x' },
  ])('$in → $out', (c) => {
    const r = parseReference(c.in);
    expect({ domain: r.domain, path: r.path, tag: r.tag, digest: r.digest }).toEqual({
      domain: c.domain,
      path: c.path,
      tag: c.tag,
      digest: undefined,
    });
    expect(formatReference(r)).toBe(c.out);
  });

  it('parses digest references without adding a tag', () => {
    const r = parseReference(`quay.io/ns/cat@sha256:${HEX}`);
    expect(r).toEqual({ domain: 'quay.io', path: 'ns/cat', name: 'quay.io/ns/cat', digest: `sha256:${HEX}` });
    expect(formatReference(r)).toBe(`quay.io/ns/cat@sha256:${HEX}`);
    expect(canonicalReference(r, r.digest ?? '')).toBe(`quay.io/ns/cat@sha256:${HEX}`);
  });

  it('keeps both tag and digest', () => {
    const r = parseReference(`busybox:1.36@sha256:${HEX}`);
    expect(r.tag).toBe('1.36');
    expect(r.digest).toBe(`sha256:${HEX}`);
    expect(formatReference(r)).toBe(`docker.io/library/busybox:1.36@sha256:${HEX}`);
  });

  it.each([
    { in: '', why: 'invalid reference format' },
    { in: 'Busybox', why: 'invalid reference format: repository name (library/Busybox) must be lowercase' },
    { in: 'quay.io/NS/cat', why: 'invalid reference format: repository name (NS/cat) must be lowercase' },
    { in: 'quay.io/cat:', why: 'invalid reference format' },
    { in: 'quay.io/cat:-bad', why: 'invalid reference format' },
    { in: `quay.io/cat:${'t'.repeat(129)}`, why: 'invalid reference format' },
    { in: 'quay.io//cat', why: 'invalid reference format' },
    { in: 'quay.io/cat@sha256:abc', why: 'invalid reference format' },
    { in: `quay.io/cat@sha256:${'a'.repeat(63)}`, why: 'invalid checksum digest length' },
    { in: `quay.io/cat@sha256:${'A'.repeat(64)}`, why: 'invalid checksum digest format' },
    { in: `quay.io/cat@md5:${'a'.repeat(32)}`, why: 'unsupported digest algorithm' },
    { in: HEX, why: `invalid repository name (${HEX}), cannot specify 64-byte hexadecimal strings` },
    { in: `r.io/${'a'.repeat(256)}`, why: 'repository name must not be more than 255 characters' },
    { in: 'quay.io/cat name', why: 'invalid reference format' },
  ])('refuses $in: $why', (c) => {
    let err: unknown;
    try {
      parseReference(c.in);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidReferenceError);
    expect((err as InvalidReferenceError).message).toBe(`error parsing image reference ${JSON.stringify(c.in)}: ${c.why}`);
    expect((err as InvalidReferenceError).terminal).toBe(true);
    expect((err as InvalidReferenceError).code).toBe('InvalidReference');
  });

  it('maps docker.io to its API host', () => {
    expect(registryApiHost('docker.io')).toBe('registry-1.docker.io');
    expect(registryApiHost('quay.io')).toBe('quay.io');
  });
});
