// A spec.address CatalogSource whose registry server goes away, through the real API server's aggregation layer: its
// PackageManifests are listed while the real `opm serve` answers; once that process is stopped the CatalogSource's
// connection goes TRANSIENT_FAILURE and its PackageManifests are no longer served (upstream's
// pkg/package-server/provider/registry.go syncSourceState drops a source's packages on TRANSIENT_FAILURE and
// SHUTDOWN); a server started again on the same address brings READY and the packages back. Every step waits for the
// API to show it (polling the API server), never for time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessPackageServer, type InProcessPackageServer } from '../../support/package-server-in-process.ts';
import * as ops from '../../../api/operators/index.ts';
import { type PackageManifest } from '../../../internal/classic/packageserver/index.ts';
import { DEMO_CATALOG } from '../../support/demo.ts';
import { adminKube } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { OpmServe } from '../../support/opm.ts';

const API = '/apis/packages.operators.coreos.com/v1';
const NAME = 'served-by-opm';
let ns: string;
let server: InProcessPackageServer | undefined;
const opms: OpmServe[] = [];
const kube = (): TestKube => adminKube();

type List = { kind: string; items: Omit<PackageManifest, 'apiVersion' | 'kind'>[] };
/** The PackageManifests the API server lists in the namespace, as `<package>/<catalog>`. */
const listed = async (): Promise<string[]> => {
  const list = await kube().must<List>(kube().request('GET', `${API}/namespaces/${ns}/packagemanifests`));
  expect(list.kind).toBe('PackageManifestList');
  return list.items.map((i) => `${i.metadata.name}/${i.status.catalogSource}`);
};
const state = async (): Promise<string | undefined> => {
  const cs = await kube().must<ops.CatalogSource>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, NAME, ns)));
  return cs.status?.connectionState?.lastObservedState;
};

beforeAll(async () => {
  server = await startInProcessPackageServer('classic-pkg-unreachable');
  ns = server.ns;
}, 180_000);

afterAll(async () => {
  await server?.stop();
  for (const opm of opms) await opm.stop();
});

describe('a spec.address CatalogSource whose opm serve stops and starts again', () => {
  it('READY: listed; opm stopped: TRANSIENT_FAILURE and not listed; opm started on the same address: READY and listed again', async () => {
    const first = new OpmServe(DEMO_CATALOG);
    opms.push(first);
    const { address, port } = await first.start();
    const spec = { sourceType: 'grpc', address, displayName: 'Served by opm' };
    await kube().must(
      kube().request('POST', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, ns), { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { name: NAME, namespace: ns }, spec }),
    );
    const served = ['demo-operator/served-by-opm'];
    await waitFor(`CatalogSource ${NAME} READY and its packages listed through the API server`, async () => (await state()) === ops.ConnectionStateReady && (await listed()).join() === served.join());

    await first.stop();
    // The order the two are seen in is not fixed (the status write and the package index follow the same channel
    // event); both have to come, and then hold together.
    await waitFor(`CatalogSource ${NAME} TRANSIENT_FAILURE`, async () => (await state()) === ops.ConnectionStateTransientFailure);
    await waitFor(`the packages of ${NAME} gone from the API server’s list`, async () => (await listed()).length === 0);
    expect(await state()).toBe(ops.ConnectionStateTransientFailure);
    // a get of one of them is the API server's 404 NotFound, as upstream's provider answers for a package it does not hold
    const gone = await kube().request('GET', `${API}/namespaces/${ns}/packagemanifests/demo-operator`);
    expect(gone.status).toBe(404);

    const again = new OpmServe(DEMO_CATALOG, port);
    opms.push(again);
    await again.start();
    await waitFor(`CatalogSource ${NAME} READY again and its packages listed again`, async () => (await state()) === ops.ConnectionStateReady && (await listed()).join() === served.join());
    const back = await kube().must<PackageManifest>(kube().request('GET', `${API}/namespaces/${ns}/packagemanifests/demo-operator`));
    expect(back.status.catalogSource).toBe(NAME);
  });
});
