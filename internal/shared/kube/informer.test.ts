import { describe, expect, it } from 'vitest';
import type { Logger } from '../toolkit/index.ts';
import type { KubeClient } from './client.ts';
import { informers } from './informer.ts';

describe('informers()', () => {
  it('names each informer\'s logger after its kind (plural, lower case) unless given a name', () => {
    const names: unknown[] = [];
    const logger: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: (f) => (names.push(f), logger) };
    const informer = informers({} as KubeClient, logger);
    const secrets = informer('v1', 'Secret');
    const heads = informer('v1', 'Secret', { name: 'revision-heads', namespace: 'olmv1-system' });
    expect(names).toEqual([{ informer: 'secrets' }, { informer: 'revision-heads' }]);
    expect([secrets.name, heads.name]).toEqual(['Secret', 'Secret in olmv1-system']);
  });
});
