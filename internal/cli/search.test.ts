// Package summaries from the demo catalog (demo/catalog): channels, versions, heads, deprecations.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexFromDirectory } from '../operator-controller/contentclient/index.ts';
import { matches, summarize } from './search.ts';

const DEMO = join(import.meta.dirname, '../../demo/catalog');

describe('summarize', async () => {
  const index = await indexFromDirectory(DEMO);
  const s = summarize('olm-demo', index.getPackage('demo-operator'))!;

  it('names the package, provider, default channel first and the newest version', () => {
    expect(s).toMatchObject({ package: 'demo-operator', catalog: 'olm-demo', provider: 'OLM demo', displayName: 'Demo Operator', defaultChannel: 'stable', latest: '0.4.0' });
    expect(s.keywords).toEqual(['demo', 'greeting']);
    expect(s.channels.map((c) => [c.name, c.default, c.head])).toEqual([
      ['stable', true, 'demo-operator.v0.3.0'],
      ['candidate', false, 'demo-operator.v0.4.0'],
    ]);
  });

  it('lists each channel’s versions newest first with the bundle deprecation', () => {
    expect(s.channels[0]!.bundles).toEqual([
      { name: 'demo-operator.v0.3.0', version: '0.3.0' },
      { name: 'demo-operator.v0.2.0', version: '0.2.0', deprecated: 'demo-operator.v0.2.0 is deprecated: it greets everyone twice. Upgrade to 0.3.0 or later.' },
      { name: 'demo-operator.v0.1.0', version: '0.1.0' },
    ]);
    expect(s.deprecated).toBeUndefined();
  });

  it('is undefined for a package the catalog lacks', () => {
    expect(summarize('olm-demo', index.getPackage('nope'))).toBeUndefined();
  });

  it('search text matches name, display name, keywords and provider, case-insensitively', () => {
    for (const text of ['demo-op', 'DEMO OPERATOR', 'greet', 'olm demo', '']) expect(matches(s, text)).toBe(true);
    expect(matches(s, 'postgres')).toBe(false);
  });
});
