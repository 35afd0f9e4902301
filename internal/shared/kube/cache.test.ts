import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { Indexer, NAMESPACE_INDEX, byNamespace } from './cache.ts';
import { cacheKey } from './types.ts';

const cm = (ns: string, name: string, owner?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: ns, name, ...(owner && { labels: { owner } }) },
});
const byOwner = (o: KubeObject): string[] => (o.metadata.labels?.['owner'] ? [o.metadata.labels['owner']] : []);

describe('Indexer', () => {
  it('keys objects namespace/name, or name when cluster-scoped', () => {
    expect(cacheKey(cm('a', 'x'))).toBe('a/x');
    expect(cacheKey({ metadata: { name: 'cluster-wide' } })).toBe('cluster-wide');
  });

  it('keeps indexes current through set, replace and delete', () => {
    const s = new Indexer<KubeObject>();
    s.addIndex(NAMESPACE_INDEX, byNamespace);
    s.addIndex('owner', byOwner);
    s.set('a/x', cm('a', 'x', 'ext1'));
    s.set('a/y', cm('a', 'y', 'ext1'));
    s.set('b/z', cm('b', 'z', 'ext2'));
    expect(s.byIndex('owner', 'ext1').map(cacheKey).sort()).toEqual(['a/x', 'a/y']);
    expect(s.byIndex(NAMESPACE_INDEX, 'b').map(cacheKey)).toEqual(['b/z']);

    const old = s.set('a/y', cm('a', 'y', 'ext2')); // moves from ext1 to ext2
    expect(old?.metadata.labels?.['owner']).toBe('ext1');
    expect(s.byIndex('owner', 'ext1').map(cacheKey)).toEqual(['a/x']);
    expect(s.byIndex('owner', 'ext2').map(cacheKey).sort()).toEqual(['a/y', 'b/z']);

    expect(s.delete('a/x')).toEqual(cm('a', 'x', 'ext1'));
    expect(s.delete('a/x')).toBeUndefined();
    expect(s.byIndex('owner', 'ext1')).toEqual([]);
    expect(s.size).toBe(2);
  });

  it('indexes what is already stored when an index is added late', () => {
    const s = new Indexer<KubeObject>();
    s.set('a/x', cm('a', 'x', 'ext1'));
    s.addIndex('owner', byOwner);
    expect(s.byIndex('owner', 'ext1').map(cacheKey)).toEqual(['a/x']);
  });

  it('rejects a duplicate index and an unknown one', () => {
    const s = new Indexer<KubeObject>();
    s.addIndex('owner', byOwner);
    expect(() => s.addIndex('owner', byOwner)).toThrow('index "owner" already exists');
    expect(() => s.byIndex('nope', 'x')).toThrow('index "nope" does not exist');
  });
});
