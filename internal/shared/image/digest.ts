// Content digests (`sha256:<64 hex>`, `sha512:<128 hex>`), per opencontainers/go-digest.
import { createHash, type Hash } from 'node:crypto';
import { ImageError } from './errors.ts';

const HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha512: 128 };
// go-digest's grammar: algorithm-component ([a-z0-9]+) joined by [+._-], then ':' and the encoded part.
const DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

export interface ParsedDigest {
  readonly algorithm: 'sha256' | 'sha512';
  readonly hex: string;
}

/** Why `digest` is not a digest this folder can verify, or undefined when it is one. */
export function digestProblem(digest: string): string | undefined {
  if (!DIGEST_RE.test(digest)) return 'invalid checksum digest format';
  const [algorithm = '', hex = ''] = digest.split(':', 2);
  const want = HEX_LENGTH[algorithm];
  if (want === undefined) return 'unsupported digest algorithm';
  if (hex.length !== want) return 'invalid checksum digest length';
  if (!/^[a-f0-9]+$/.test(hex)) return 'invalid checksum digest format';
  return undefined;
}

export function parseDigest(digest: string, what = 'digest'): ParsedDigest {
  const problem = digestProblem(digest);
  if (problem) throw new ImageError('InvalidDigest', `${what} ${JSON.stringify(digest)}: ${problem}`, { terminal: true });
  const [algorithm, hex] = digest.split(':', 2) as ['sha256' | 'sha512', string];
  return { algorithm, hex };
}

export const sha256 = (data: Uint8Array | string): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** `sha256:abc…` → `sha256-abc…`, usable as one path component. */
export const digestToPathComponent = (digest: string): string => digest.replace(':', '-');

/** A running hash for the algorithm of `expected`; `digest()` gives `alg:hex`. */
export class DigestHasher {
  readonly algorithm: 'sha256' | 'sha512';
  private hash: Hash;
  constructor(expected: string) {
    this.algorithm = parseDigest(expected).algorithm;
    this.hash = createHash(this.algorithm);
  }
  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
  }
  reset(): void {
    this.hash = createHash(this.algorithm);
  }
  digest(): string {
    return `${this.algorithm}:${this.hash.digest('hex')}`;
  }
}

export function digestOf(data: Uint8Array, like: string): string {
  const h = new DigestHasher(like);
  h.update(data);
  return h.digest();
}
