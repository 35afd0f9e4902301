// The metas answer cache: LRU order, the byte budget, and answers too big to keep.
import { describe, expect, it } from 'vitest';
import { MAX_CACHED_ANSWER, answerCache } from './cache.ts';

describe('answerCache', () => {
  it('evicts the least recently used answers beyond its budget', () => {
    const c = answerCache(10);
    c.set('a', Buffer.from('aaaa'));
    c.set('b', Buffer.from('bbbb'));
    expect(c.get('a')?.toString()).toBe('aaaa'); // a is now the most recent
    c.set('c', Buffer.from('cccc'));
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')?.toString()).toBe('aaaa');
    expect(c.get('c')?.toString()).toBe('cccc');
    expect(c.bytes).toBe(8);
    c.set('a', Buffer.from('AA'));
    expect(c.bytes).toBe(6);
  });

  it('does not keep an answer bigger than the budget or than the per-answer limit', () => {
    const c = answerCache(4);
    c.set('big', Buffer.from('12345'));
    expect(c.get('big')).toBeUndefined();
    const roomy = answerCache(10 * MAX_CACHED_ANSWER);
    roomy.set('huge', Buffer.alloc(MAX_CACHED_ANSWER + 1));
    expect(roomy.get('huge')).toBeUndefined();
    expect(roomy.bytes).toBe(0);
  });

  it('drops the entries a predicate picks, and lists what it holds', () => {
    const c = answerCache(100);
    c.set('/catalogs/a/1', Buffer.from('aa'));
    c.set('/catalogs/b/1', Buffer.from('bbb'));
    c.set('/catalogs/a/2', Buffer.from('a'));
    c.deleteWhere((key) => key.startsWith('/catalogs/a/'));
    expect([...c.values()].map((v) => v.toString())).toEqual(['bbb']);
    expect(c.bytes).toBe(3);
    expect(c.get('/catalogs/a/1')).toBeUndefined();
  });
});
