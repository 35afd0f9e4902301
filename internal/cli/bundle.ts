// `kubectl olm bundle render <dir>`: what operator-controller would install from a registry+v1
// bundle directory, as YAML documents in upstream's golden-file order, or every validation
// problem (exit 1).
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { dump, load } from 'js-yaml';
import { GO_YAML_SCHEMA } from '../shared/fbc/index.ts';
import { renderBundle, RenderError, sortForGolden } from '../operator-controller/render/index.ts';
import { BundleLoadError } from '../shared/registryv1/index.ts';
import { CliUsageError, parseStrict, type CliCommand } from './types.ts';

const CERT_PROVIDERS = ['cert-manager', 'openshift-serviceca', 'none'] as const;

/** One YAML document per object, keys sorted as sigs.k8s.io/yaml writes them. */
export function manifestsYAML(objects: readonly object[]): string {
  return objects.map((o) => `---\n${dump(o, { sortKeys: true, noArrayIndent: true, lineWidth: -1, noRefs: true, quotingType: '"', skipInvalid: true })}`).join('');
}

export const bundleRender: CliCommand = {
  path: ['bundle', 'render'],
  summary: 'print the manifests operator-controller would install from a registry+v1 bundle directory',
  usage: [
    'Usage: kubectl olm bundle render <bundle dir> --install-namespace <ns> [--watch-namespace <ns>] [--config <file>]',
    '                                 [--cert-provider cert-manager|openshift-serviceca|none]',
    '',
    'Renders the registry+v1 bundle in <bundle dir> (manifests/, metadata/annotations.yaml) as',
    'operator-controller does: upstream’s bundle checks, install modes, the bundle configuration',
    '(--config: a YAML or JSON file with watchNamespace and/or deploymentConfig, as spec.config.inline),',
    'RBAC with upstream’s generated names, Deployments, webhooks and certificates. Prints one YAML',
    'document per object, sorted by kind, namespace and name. When the bundle or configuration is',
    'invalid, prints every problem and exits 1. Like upstream’s renderer library there is no',
    'certificate provider unless --cert-provider names one: webhook configurations, Services and',
    'Deployments then carry no CA injection, certificate volumes or issuer objects (operator-controller',
    'itself refuses to install such a bundle without a provider). --cert-provider none is the default.',
    '',
    'Example:',
    '  kubectl olm bundle render demo/bundles/demo-operator.v0.1.0 --install-namespace demo',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals } = parseStrict(args, {
      'install-namespace': { type: 'string' },
      'watch-namespace': { type: 'string' },
      config: { type: 'string' },
      'cert-provider': { type: 'string' },
    });
    if (positionals.length !== 1) throw new CliUsageError(`expected exactly one bundle directory, got ${positionals.length}`);
    const installNamespace = values['install-namespace'];
    if (installNamespace === undefined || installNamespace === '') throw new CliUsageError('--install-namespace is required');
    const certProvider = values['cert-provider'] ?? 'none';
    if (!(CERT_PROVIDERS as readonly string[]).includes(certProvider)) {
      throw new CliUsageError(`invalid --cert-provider "${certProvider}": want ${CERT_PROVIDERS.join(', ')}`);
    }
    const dir = resolve(io.cwd, positionals[0]!);
    const st = await stat(dir).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`${positionals[0]!} is not a bundle directory`);
    let config: unknown;
    if (values.config !== undefined) {
      const text = await readFile(resolve(io.cwd, values.config), 'utf8');
      try {
        config = load(text, { schema: GO_YAML_SCHEMA }) ?? undefined;
      } catch (err) {
        io.stderr.write(`invalid ClusterExtension configuration: ${(err as Error).message.split('\n')[0]!}\n`);
        return 1;
      }
    }
    try {
      const objects = await renderBundle(dir, {
        installNamespace,
        watchNamespace: values['watch-namespace'],
        config,
        certProvider: certProvider === 'none' ? null : (certProvider as 'cert-manager' | 'openshift-serviceca'),
      });
      io.stdout.write(manifestsYAML(sortForGolden(objects)));
      return 0;
    } catch (err) {
      if (err instanceof RenderError || err instanceof BundleLoadError) {
        io.stderr.write(`${err.message}\n`);
        return 1;
      }
      throw err;
    }
  },
};
