import { describe, expect, it } from 'vitest';
import { describeSubject } from './index.ts';

describe('describeSubject', () => {
  it('names what each of upstream’s variable ids stands for', () => {
    expect(describeSubject('subscription:a-alpha')).toBe('Subscription a-alpha');
    expect(describeSubject('@existing/ns//a.v1')).toBe('installed CSV a.v1');
    expect(describeSubject('catsrc/catsrc-namespace/alpha/a.v3')).toBe('bundle a.v3 (channel alpha of CatalogSource catsrc-namespace/catsrc)');
    expect(describeSubject('Widget (x.io/v1)')).toBe('API Widget (x.io/v1)');
    expect(describeSubject('etcd')).toBe('package etcd');
  });
});
