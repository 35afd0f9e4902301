// The two real catalogs end to end: each directory pushed as a catalog image (FBC under /configs
// with the configs label) to the real registry, a ClusterCatalog created through the real API
// server, catalogd pulls, stores and serves it; the body of `<status.urls.base>/api/v1/all` read
// over HTTP has exactly EXPECTED-SUMMARY.json's jsonlBytes, and the same sha256 as
// `kubectl olm catalog render` of the same directory. A metas query is checked against the
// served lines too.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../../internal/cli/index.ts';
import { dispatch } from '../../../internal/cli/index.ts';
import { registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createCatalog, deleteCatalogs, releaseFinalizers, serving, uniqueName, waitForCatalog } from './catalogs.ts';
import { startCatalogd, stopAll, type RunningCatalogd } from './harness.ts';
import { CATALOG_SUMMARY, realCatalogDir } from '../../support/testdata.ts';

const expected = JSON.parse(readFileSync(CATALOG_SUMMARY, 'utf8')) as {
  catalogs: Record<string, { jsonlBytes: number; blobs: number }>;
};
const CATALOGS = ['certified-operators-v4.21', 'community-operators-v4.21'] as const;

const created = new Set<string>();
let cd: RunningCatalogd;

beforeAll(async () => {
  cd = await startCatalogd();
});
afterAll(async () => {
  await deleteCatalogs(created);
  await stopAll();
  await releaseFinalizers();
});

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** `kubectl olm catalog render <dir>` through the CLI's dispatcher: exit code and stdout. */
async function render(dir: string): Promise<{ code: number; stdout: Buffer }> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const code = await dispatch(commands, ['catalog', 'render', dir], { stdout: out, stderr: new PassThrough(), cwd: process.cwd(), env: {} });
  return { code, stdout: Buffer.concat(chunks) };
}

async function get(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const res = await request(url);
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

describe('the real catalogs served by catalogd', () => {
  it('both: /api/v1/all has exactly jsonlBytes and the bytes of `kubectl olm catalog render`', async () => {
    // Push both and create both catalogs first, so catalogd pulls them side by side.
    const names = new Map<string, string>();
    for (const catalog of CATALOGS) {
      const pushed = await pushCatalogImage(registry(), `catalogd/real-${catalog}:v1`, { dir: realCatalogDir(catalog) });
      const name = uniqueName(catalog.split('-')[0] ?? 'real');
      created.add(name);
      names.set(catalog, name);
      await createCatalog(name, { ref: pushed.ref });
    }
    for (const catalog of CATALOGS) {
      const name = names.get(catalog) ?? '';
      const c = await waitForCatalog(name, 'Serving', serving, 45_000);
      const base = c.status?.urls?.base ?? '';
      expect(base).toBe(`${cd.serverUrl}/catalogs/${name}`);

      const all = await get(`${base}/api/v1/all`);
      expect(all.status).toBe(200);
      expect(all.headers['content-type']).toBe('application/jsonl');
      expect(all.headers['content-length']).toBe(String(expected.catalogs[catalog]?.jsonlBytes));
      expect(all.body.length).toBe(expected.catalogs[catalog]?.jsonlBytes);
      const lines = all.body.toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.length).toBe(expected.catalogs[catalog]?.blobs);

      const rendered = await render(realCatalogDir(catalog));
      expect(rendered.code).toBe(0);
      expect(rendered.stdout.length).toBe(all.body.length);
      expect(sha256(all.body)).toBe(sha256(rendered.stdout));

      // A metas query answers the served lines of that package's bundles, in file order.
      const first = JSON.parse(lines[0] ?? '{}') as { schema?: string; name?: string };
      expect(first.schema).toBe('olm.package');
      const pkg = first.name ?? '';
      const metas = await get(`${base}/api/v1/metas?schema=olm.bundle&package=${encodeURIComponent(pkg)}`);
      expect(metas.status).toBe(200);
      const want = lines
        .filter((l) => {
          const m = JSON.parse(l) as { schema?: string; package?: string };
          return m.schema === 'olm.bundle' && m.package === pkg;
        })
        .map((l) => `${l}\n`)
        .join('');
      expect(want.length).toBeGreaterThan(0);
      expect(metas.body.toString('utf8')).toBe(want);
    }
  }, 90_000);
});
