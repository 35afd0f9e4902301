// `npm run bench`: every benchmark, printed as a table of figures. Never pass/fail.
// Select some with `npm run bench -- workqueue informer`; BENCH_COLD=1 adds the cold build.
import { benchCatalogGraphQL } from './catalog-graphql.ts';
import { benchClassicInstall } from './classic-install.ts';
import { benchClassicMigrate } from './classic-migrate.ts';
import { benchClassicSubscriptions } from './classic-subscriptions.ts';
import { benchCatalogServer } from './catalog-server.ts';
import { benchCatalogCertified, benchCatalogScale } from './catalog-scale.ts';
import { benchCatalogUnpack } from './catalog-unpack.ts';
import { benchCliStartup } from './cli-startup.ts';
import { benchCatalogdFiles } from './catalogd-files.ts';
import { benchCatalogdPeer } from './catalogd-peer.ts';
import { benchCatalogdRelease } from './catalogd-release.ts';
import { benchClassicCSV } from './classic-csv.ts';
import { benchContentClient } from './content-client.ts';
import { benchControlPlane, type Figure } from './control-plane.ts';
import { benchFootprint } from './footprint.ts';
import { benchGating } from './gating.ts';
import { benchInformer } from './informer.ts';
import { benchMakeRun } from './make-run.ts';
import { benchObjectSetRuntime } from './objectset-runtime.ts';
import { benchOperatorController } from './operator-controller.ts';
import { benchPackageServer } from './package-server.ts';
import { benchRealNode } from './real-node.ts';
import { benchResolveClassic } from './resolve-classic.ts';
import { benchResolveV1 } from './resolve-v1.ts';
import { benchWorkqueue } from './workqueue.ts';

const benches: Record<string, () => Promise<Figure[]>> = {
  workqueue: () => benchWorkqueue(),
  informer: benchInformer,
  'control-plane': benchControlPlane,
  'catalog-server': benchCatalogServer,
  'catalog-graphql': benchCatalogGraphQL,
  'catalog-scale': benchCatalogScale,
  'catalog-certified': benchCatalogCertified,
  'catalog-unpack': benchCatalogUnpack,
  'catalogd-files': benchCatalogdFiles,
  'catalogd-peer': benchCatalogdPeer,
  'catalogd-release': benchCatalogdRelease,
  'resolve-v1': benchResolveV1,
  'resolve-classic': benchResolveClassic,
  'classic-subscriptions': benchClassicSubscriptions,
  'classic-install': benchClassicInstall,
  'classic-migrate': benchClassicMigrate,
  'package-server': benchPackageServer,
  'content-client': benchContentClient,
  'operator-controller': benchOperatorController,
  'objectset-runtime': benchObjectSetRuntime,
  'classic-csv': benchClassicCSV,
  'make-run': benchMakeRun,
  gating: benchGating,
  'cli-startup': benchCliStartup,
  footprint: benchFootprint,
  'real-node': benchRealNode,
};

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(benches)) {
  if (wanted.length && !wanted.includes(name)) continue;
  console.log(`\n## ${name}`);
  for (const f of await run()) {
    console.log(`${f.name.padEnd(64)} ${String(f.value).padStart(12)} ${f.unit}${f.note ? `  (${f.note})` : ''}`);
  }
}
