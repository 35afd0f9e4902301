import { describe, expect, it } from 'vitest';
import { fnv64a } from './fnv.ts';

describe('fnv64a (Go hash/fnv New64a)', () => {
  it('matches the reference vectors', () => {
    expect(fnv64a('').toString(16)).toBe('cbf29ce484222325');
    expect(fnv64a('a').toString(16)).toBe('af63dc4c8601ec8c');
    expect(fnv64a('foobar').toString(16)).toBe('85944171f73967e8');
  });
});
