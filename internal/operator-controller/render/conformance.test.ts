// Upstream's renderer golden cases (testdata/upstream/operator-controller/render.tar.zst): every case must produce exactly
// the expected objects, names and hashes included, in the golden files' order.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { renderBundle } from './render.ts';
import { sortForGolden } from './order.ts';
import { renderConformanceDir } from '../../../test/support/testdata.ts';

const DIR = renderConformanceDir();

interface Case {
  name: string;
  bundle: string;
  installNamespace: string;
  watchNamespace: string;
  deploymentConfig: unknown;
  expectedDir: string;
  expectedFileCount: number;
}

const { cases } = JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8')) as { cases: Case[] };

describe('render conformance', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });
  it.each(cases)('$name', async (c) => {
    const objects = await renderBundle(join(DIR, c.bundle), {
      installNamespace: c.installNamespace,
      watchNamespace: c.watchNamespace,
      config: c.deploymentConfig === null ? undefined : { deploymentConfig: c.deploymentConfig },
    });
    const files = readdirSync(join(DIR, c.expectedDir)).sort();
    expect(files).toHaveLength(c.expectedFileCount);
    const want = files.map((f) => load(readFileSync(join(DIR, c.expectedDir, f), 'utf8')));
    const got = sortForGolden(objects);
    expect(got.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(want.map((o) => `${(o as { kind: string }).kind}/${(o as { metadata: { name: string } }).metadata.name}`));
    got.forEach((o, i) => expect(JSON.parse(JSON.stringify(o)), files[i]).toEqual(want[i]));
    files.forEach((f, i) => expect(f).toBe(`${String(i).padStart(2, '0')}_${got[i]!.kind!.toLowerCase()}_${got[i]!.metadata.name}.yaml`));
  });
});
