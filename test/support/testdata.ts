// The repository's test data (testdata/, origins in testdata/SOURCES.md). Small files are read where they are; the two
// real catalogs and upstream's render goldens are kept as zstd-compressed tar archives and unpacked on first use into
// .cache/testdata, in a folder named by the archive's digest, so a later run (or another test worker) finds the
// current copy there.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { decompress } from 'fzstd';

const root = join(import.meta.dirname, '..', '..');

/** The repository's testdata/ folder. */
export const TESTDATA = join(root, 'testdata');

/** The two real File-Based Catalogs in testdata/catalogs (Red Hat's OpenShift 4.21 operator catalogs, partial). */
export type RealCatalog = 'certified-operators-v4.21' | 'community-operators-v4.21';
export const REAL_CATALOGS: readonly RealCatalog[] = ['certified-operators-v4.21', 'community-operators-v4.21'];

/** testdata/catalogs/EXPECTED-SUMMARY.json: totals and per-package figures of both real catalogs. */
export const CATALOG_SUMMARY = join(TESTDATA, 'catalogs', 'EXPECTED-SUMMARY.json');

/** The registry+v1 bundle rabbitmq-messaging-topology-operator 1.19.3 (a directory with manifests/ and metadata/). */
export const RABBITMQ_BUNDLE = join(TESTDATA, 'bundles', 'rabbitmq-messaging-topology-operator-1.19.3');

/**
 * Upstream operator-controller's renderer golden cases (bundles/, expected-manifests/, cases.json), unpacked from
 * testdata/upstream/operator-controller/render.tar.zst on first use. Synchronous, so a test file may call it at load time.
 */
export function renderConformanceDir(): string {
  return unpacked(join(TESTDATA, 'upstream', 'operator-controller', 'render.tar.zst'), 'render');
}

/** Upstream CRDs: operator-controller's (standard/, experimental/), operator-framework/api's classic ones, openshift/api's. */
export const UPSTREAM_CRDS = {
  operatorController: join(TESTDATA, 'upstream', 'operator-controller', 'crds'),
  classic: join(TESTDATA, 'upstream', 'operator-framework-api', 'crds'),
  openshift: join(TESTDATA, 'upstream', 'openshift-api', 'crds'),
} as const;

/**
 * The directory of a real catalog (`<dir>/<package>/catalog.yaml`), unpacked from testdata/catalogs/<name>.tar.zst on
 * first use. Synchronous, so a test file may call it at load time.
 */
export function realCatalogDir(name: RealCatalog | (string & {})): string {
  if (!(REAL_CATALOGS as readonly string[]).includes(name)) throw new Error(`no real catalog ${name} in testdata/catalogs (${REAL_CATALOGS.join(', ')})`);
  return unpacked(join(TESTDATA, 'catalogs', `${name}.tar.zst`), name);
}

/** The folder `top` of a .tar.zst archive whose entries all sit under `top/`, as .cache/testdata/<digest>/<top>. */
function unpacked(archive: string, top: string): string {
  const bytes = readFileSync(archive);
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const parent = join(root, '.cache', 'testdata', digest);
  const target = join(parent, top);
  if (existsSync(target)) return target;

  // Unpack beside, then rename: a concurrent worker either wins the rename or finds the complete copy in place.
  const tmp = `${parent}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  extractTar(decompress(bytes), join(tmp, top), top);
  try {
    renameSync(tmp, parent);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(target)) throw err;
  }
  return target;
}

/** Writes the regular files and directories of a ustar archive whose entries all sit under `top/`, into `dest`. */
function extractTar(tar: Uint8Array, dest: string, top: string): void {
  const buf = Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  const field = (off: number, len: number): string => {
    const end = buf.indexOf(0, off);
    return buf.toString('utf8', off, end === -1 || end > off + len ? off + len : end);
  };
  let off = 0;
  while (off + 512 <= buf.length) {
    if (buf.subarray(off, off + 512).every((b) => b === 0)) break;
    const prefix = field(off + 345, 155);
    const path = (prefix ? `${prefix}/` : '') + field(off, 100);
    const size = parseInt(field(off + 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(buf[off + 156] ?? 0);
    const data = off + 512;
    const rel = normalize(path);
    if (rel !== top && !rel.startsWith(top + sep) && !rel.startsWith(top + '/')) throw new Error(`testdata archive entry outside ${top}/: ${path}`);
    const out = join(dest, rel.slice(top.length));
    if (type === '5') mkdirSync(out, { recursive: true });
    else if (type === '0' || type === '\0') {
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, buf.subarray(data, data + size));
    } else throw new Error(`testdata archive entry ${path}: type ${JSON.stringify(type)} is not a file or directory`);
    off = data + Math.ceil(size / 512) * 512;
  }
}

/** testdata/upstream/operator-lifecycle-manager/packagemanifests.tar.zst (hack/upstream-packagemanifests.ts writes it). */
export const UPSTREAM_PACKAGEMANIFESTS_ARCHIVE = join(TESTDATA, 'upstream', 'operator-lifecycle-manager', 'packagemanifests.tar.zst');

/**
 * What upstream's package server lists for the CatalogSources below (`<name>.json`: the items, sorted by package name,
 * relatedImages sorted, creationTimestamp null), each of sourceType grpc with spec.address at `opm serve` of its
 * catalog, in the global catalog namespace `olm`: the folder of UPSTREAM_PACKAGEMANIFESTS_ARCHIVE, unpacked on first
 * use (testdata/SOURCES.md). Synchronous.
 */
export function upstreamPackageManifestsDir(): string {
  return unpacked(UPSTREAM_PACKAGEMANIFESTS_ARCHIVE, 'packagemanifests');
}

/** The CatalogSources of UPSTREAM_PACKAGEMANIFESTS (spec.address aside): `demo` serves demo/catalog, `community` community-operators-v4.21. */
export const UPSTREAM_PACKAGEMANIFEST_SOURCES = [
  {
    metadata: { name: 'demo', labels: { team: 'demo' } },
    spec: { sourceType: 'grpc', displayName: 'Demo Catalog', publisher: 'OLM demo team' },
  },
  {
    metadata: { name: 'community', labels: { 'olm.catalogSource': 'community' } },
    spec: { sourceType: 'grpc', displayName: 'Community Operators', publisher: 'Red Hat' },
  },
  {
    metadata: { name: 'deprecations', labels: {} },
    spec: { sourceType: 'grpc', displayName: '', publisher: '' },
  },
] as const;
export type UpstreamPackageManifestSource = (typeof UPSTREAM_PACKAGEMANIFEST_SOURCES)[number];

/** The deprecations the `deprecations` catalog adds to the demo catalog's (which deprecates one bundle). */
const DEMO_DEPRECATIONS = `
- reference:
    schema: olm.package
  message: |
    demo-operator is deprecated: use the greeter operator instead.
- reference:
    schema: olm.channel
    name: candidate
  message: |
    The candidate channel is deprecated: use stable.
`;

/**
 * The catalog directory of an UPSTREAM_PACKAGEMANIFEST_SOURCES entry: demo/catalog; community-operators-v4.21; and
 * `deprecations`, the demo catalog with its package and its candidate channel deprecated too (neither real catalog
 * deprecates anything), written to .cache/testdata/deprecations-demo. Synchronous.
 */
export function upstreamPackageManifestCatalog(name: string): string {
  const demo = join(root, 'demo', 'catalog');
  if (name === 'demo') return demo;
  if (name === 'community') return realCatalogDir('community-operators-v4.21');
  if (name !== 'deprecations') throw new Error(`no catalog ${name} for the upstream PackageManifests`);
  const dir = join(root, '.cache', 'testdata', 'deprecations-demo');
  const pkg = join(dir, 'demo-operator');
  mkdirSync(pkg, { recursive: true });
  for (const f of ['bundles.yaml', 'channels.yaml', 'package.yaml']) writeFileSync(join(pkg, f), readFileSync(join(demo, 'demo-operator', f)));
  writeFileSync(join(pkg, 'deprecations.yaml'), `${readFileSync(join(demo, 'demo-operator', 'deprecations.yaml'), 'utf8').trimEnd()}${DEMO_DEPRECATIONS}`);
  return dir;
}
