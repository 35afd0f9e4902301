// The MutatingAdmissionPolicy of config/admission against the real API server: every
// ClusterCatalog carries olm.operatorframework.io/metadata.name=<name>, whatever the request
// says, on create and on update. No catalogd runs here: the API server does it alone.
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterCatalog } from '../../../api/v1/index.ts';
import { METADATA_NAME_LABEL } from '../../support/admission.ts';
import { adminKube } from '../../support/env.ts';
import {
  deleteCatalog,
  uniqueName,
} from './catalogs.ts';

const path = (name?: string): string => `/apis/olm.operatorframework.io/v1/clustercatalogs${name ? `/${name}` : ''}`;
const created: string[] = [];

afterAll(async () => {
  await Promise.all(created.map(deleteCatalog));
});

const body = (metadata: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterCatalog',
  metadata,
  spec: { source: { type: 'Image', image: { ref: 'registry.invalid/catalogs/policy:latest' } } },
});

async function create(metadata: Record<string, unknown>): Promise<ClusterCatalog> {
  const c = await adminKube().must<ClusterCatalog>(adminKube().request('POST', path(), body(metadata)));
  created.push(c.metadata.name!);
  return c;
}

const merge = (name: string, patch: unknown) =>
  adminKube().must<ClusterCatalog>(adminKube().request('PATCH', path(name), patch, 'application/merge-patch+json'));

describe('the metadata.name label policy', () => {
  it('labels a catalog created without the label', async () => {
    const name = uniqueName('label-none');
    const c = await create({ name });
    expect(c.metadata.labels).toEqual({ [METADATA_NAME_LABEL]: name });
  });

  it('corrects a wrong label and keeps the other labels', async () => {
    const name = uniqueName('label-wrong');
    const c = await create({ name, labels: { [METADATA_NAME_LABEL]: 'someone-else', team: 'a' } });
    expect(c.metadata.labels).toEqual({ [METADATA_NAME_LABEL]: name, team: 'a' });
  });

  it('puts the label back on an update that removes it, and on one that changes it', async () => {
    const name = uniqueName('label-update');
    await create({ name });
    const removed = await merge(name, { metadata: { labels: { [METADATA_NAME_LABEL]: null, extra: 'x' } } });
    expect(removed.metadata.labels).toEqual({ [METADATA_NAME_LABEL]: name, extra: 'x' });
    const changed = await merge(name, { metadata: { labels: { [METADATA_NAME_LABEL]: 'other' } } });
    expect(changed.metadata.labels?.[METADATA_NAME_LABEL]).toBe(name);

    const current = await adminKube().must<ClusterCatalog>(adminKube().request('GET', path(name)));
    const { [METADATA_NAME_LABEL]: _drop, ...rest } = current.metadata.labels ?? {};
    const put = await adminKube().must<ClusterCatalog>(adminKube().request('PUT', path(name), { ...current, metadata: { ...current.metadata, labels: rest } }));
    expect(put.metadata.labels?.[METADATA_NAME_LABEL]).toBe(name);
  });

  it('labels a generateName catalog at its first update (its name is not known during admission)', async () => {
    const c = await create({ generateName: 'label-gen-' });
    expect(c.metadata.labels?.[METADATA_NAME_LABEL]).toBeUndefined();
    const updated = await merge(c.metadata.name!, { metadata: { annotations: { touched: 'yes' } } });
    expect(updated.metadata.labels?.[METADATA_NAME_LABEL]).toBe(c.metadata.name);
  });

  it('refuses a name too long to be a label value, as upstream’s webhook does', async () => {
    const name = `label-${'x'.repeat(60)}`;
    const r = await adminKube().request<{ message?: string }>('POST', path(), body({ name }));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain(`metadata.labels: Invalid value: "${name}": must be no more than 63 bytes`);
  });
});
