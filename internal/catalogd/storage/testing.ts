// Synthetic file-based catalogs for tests and benchmarks: per package one `<pkg>/catalog.yaml`
// with an olm.package, one channel whose entries form a replaces chain, and olm.bundle blobs
// with realistic properties (olm.package, olm.gvk, olm.csv.metadata) and related images.
// Not part of the public surface.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SyntheticCatalogOptions {
  readonly packages: number;
  readonly bundlesPerPackage: number;
  /** Package name prefix (default `pkg`). */
  readonly prefix?: string;
  /** Bytes of description text per bundle (default 600). */
  readonly descriptionBytes?: number;
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

export const packageName = (prefix: string, i: number): string => `${prefix}-${String(i).padStart(5, '0')}`;

/** One package's catalog.yaml. */
export function syntheticPackageYaml(pkg: string, bundles: number, descriptionBytes = 600): string {
  const version = (i: number): string => `1.${Math.floor(i / 10)}.${i % 10}`;
  const bundle = (i: number): string => `${pkg}.v${version(i)}`;
  const description = `${pkg} manages its application on Kubernetes. `.repeat(Math.ceil(descriptionBytes / 60)).slice(0, descriptionBytes);
  const parts: string[] = [
    [
      '---',
      'schema: olm.package',
      `name: ${pkg}`,
      'defaultChannel: stable',
      `description: ${JSON.stringify(`${pkg} operator`)}`,
      'icon:',
      '  base64data: PHN2ZyB2aWV3Qm94PSIwIDAgMTAwIDEwMCI+PGNpcmNsZSBjeD0iMjUiIGN5PSIyNSIgcj0iMjUiLz48L3N2Zz4=',
      '  mediatype: image/svg+xml',
    ].join('\n'),
  ];
  const entries = ['---', 'schema: olm.channel', `package: ${pkg}`, 'name: stable', 'entries:'];
  for (let i = 0; i < bundles; i++) {
    entries.push(`  - name: ${bundle(i)}`);
    if (i > 0) entries.push(`    replaces: ${bundle(i - 1)}`, `    skipRange: '>=1.0.0 <${version(i)}'`);
  }
  parts.push(entries.join('\n'));
  for (let i = 0; i < bundles; i++) {
    const v = version(i);
    parts.push(
      [
        '---',
        'schema: olm.bundle',
        `name: ${bundle(i)}`,
        `package: ${pkg}`,
        `image: quay.io/example/${pkg}-bundle@sha256:${sha(`${pkg}:${v}:bundle`)}`,
        'properties:',
        '  - type: olm.package',
        '    value:',
        `      packageName: ${pkg}`,
        `      version: ${v}`,
        '  - type: olm.gvk',
        '    value:',
        `      group: ${pkg}.example.com`,
        '      kind: Widget',
        '      version: v1',
        '  - type: olm.gvk',
        '    value:',
        `      group: ${pkg}.example.com`,
        '      kind: Gadget',
        '      version: v1beta1',
        '  - type: olm.csv.metadata',
        '    value:',
        '      annotations:',
        '        capabilities: Seamless Upgrades',
        '        categories: Database',
        `        containerImage: quay.io/example/${pkg}@sha256:${sha(`${pkg}:${v}:operator`)}`,
        '        createdAt: "2025-06-24T14:07:09Z"',
        '        operators.openshift.io/valid-subscription: \'["Example Subscription"]\'',
        `        repository: https://github.com/example/${pkg}`,
        '        support: Example, Inc.',
        '      apiServiceDefinitions: {}',
        '      crdDescriptions:',
        '        owned:',
        `          - name: widgets.${pkg}.example.com`,
        '            kind: Widget',
        '            version: v1',
        '            displayName: Widget',
        '            description: A widget.',
        `      description: ${JSON.stringify(description)}`,
        `      displayName: ${pkg}`,
        '      installModes:',
        '        - supported: true',
        '          type: OwnNamespace',
        '        - supported: true',
        '          type: SingleNamespace',
        '        - supported: false',
        '          type: MultiNamespace',
        '        - supported: true',
        '          type: AllNamespaces',
        '      keywords: [database, example]',
        '      links:',
        '        - name: Documentation',
        `          url: https://example.com/${pkg}/docs`,
        '      maintainers:',
        '        - email: support@example.com',
        '          name: Example',
        '      maturity: stable',
        '      minKubeVersion: 1.25.0',
        '      provider:',
        '        name: Example, Inc.',
        'relatedImages:',
        `  - name: operator`,
        `    image: quay.io/example/${pkg}@sha256:${sha(`${pkg}:${v}:operator`)}`,
        `  - name: ""`,
        `    image: quay.io/example/${pkg}-bundle@sha256:${sha(`${pkg}:${v}:bundle`)}`,
      ].join('\n'),
    );
  }
  return parts.join('\n') + '\n';
}

/** Writes a synthetic catalog under `dir`; resolves to the bytes written. */
export async function writeSyntheticCatalog(dir: string, options: SyntheticCatalogOptions): Promise<number> {
  let bytes = 0;
  for (let i = 0; i < options.packages; i++) {
    const pkg = packageName(options.prefix ?? 'pkg', i);
    await mkdir(join(dir, pkg), { recursive: true });
    const text = syntheticPackageYaml(pkg, options.bundlesPerPackage, options.descriptionBytes);
    await writeFile(join(dir, pkg, 'catalog.yaml'), text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}
