import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OLM_VERSION } from './olm-version.ts';

describe('OLM_VERSION', () => {
  it('is package.json’s version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(OLM_VERSION).toBe(pkg.version);
  });
});
