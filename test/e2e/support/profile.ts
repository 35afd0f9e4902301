// The two ways upstream runs its e2e suite (Makefile test-e2e / test-experimental-e2e, helm/olmv1/values.yaml and
// helm/experimental.yaml), each on a control plane of its own: the profile's CRDs (config/crd/bases or
// config/crd/experimental) and config/admission installed, catalogd and operator-controller run in this process
// with the profile's feature gates passed through their `--feature-gates` flags (cmd/*/flags.ts), catalogd serving
// over HTTPS with a certificate operator-controller trusts (`--catalogd-cas-dir`), as upstream's deployment does.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogdFlags, catalogdOptions, CATALOGD_FEATURE_GATES, type CatalogdFlagValues } from '../../../cmd/catalogd/flags.ts';
import {
  OPERATOR_CONTROLLER_FEATURE_GATES,
  operatorControllerFlags,
  operatorControllerOptions,
  type OperatorControllerFlagValues,
} from '../../../cmd/operator-controller/flags.ts';
import type { Flag } from '../../../internal/shared/manager/index.ts';
import { installAdmissionPolicies } from '../../support/admission.ts';
import { ControlPlane, type ControlPlaneInfo } from '../../support/control-plane.ts';
import { installCrds, yamlFiles } from '../../support/crds.ts';
import { registry, useControlPlane } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { freePort } from '../../support/net.ts';
import { startCatalogd, type RunningCatalogd } from '../../integration/catalogd/harness.ts';
import { releaseFinalizers } from '../../integration/catalogd/catalogs.ts';
import { SYSTEM_NAMESPACE, startOperatorController, type RunningOperatorController } from '../../integration/operator-controller/harness.ts';
import { Kubectl } from './kubectl.ts';

export type ProfileName = 'standard' | 'experimental';

export interface ProfileSpec {
  readonly name: ProfileName;
  /** config/crd/<dir>: the CRD set upstream installs for the profile. */
  readonly crdDir: 'bases' | 'experimental';
  /** operator-controller's gates as upstream's manifest passes them (`--feature-gates=X=true|false`). */
  readonly operatorControllerGates: Readonly<Record<string, boolean>>;
  readonly catalogdGates: Readonly<Record<string, boolean>>;
  /** catalogd's replicas in upstream's deployment (2 in experimental): upstream turns on its CatalogdHA tag with ≥ 2. */
  readonly catalogdReplicas: number;
}

export const PROFILES: Readonly<Record<ProfileName, ProfileSpec>> = {
  standard: {
    name: 'standard',
    crdDir: 'bases',
    operatorControllerGates: {
      WebhookProviderCertManager: true,
      BoxcutterRuntime: false,
      BundleReleaseSupport: false,
      DeploymentConfig: false,
      SingleOwnNamespaceInstallSupport: false,
      WebhookProviderOpenshiftServiceCA: false,
    },
    catalogdGates: { APIV1MetasHandler: false },
    catalogdReplicas: 1,
  },
  experimental: {
    name: 'experimental',
    crdDir: 'experimental',
    operatorControllerGates: {
      BoxcutterRuntime: true,
      BundleReleaseSupport: true,
      DeploymentConfig: true,
      SingleOwnNamespaceInstallSupport: true,
      WebhookProviderCertManager: true,
      WebhookProviderOpenshiftServiceCA: false,
    },
    catalogdGates: { APIV1MetasHandler: true, GraphQLCatalogQueries: true },
    catalogdReplicas: 2,
  },
};

/**
 * The gates a scenario's tags are checked against, as upstream's hooks.go builds them: its defaults, the
 * operator-controller's `--feature-gates` arguments over them, and CatalogdHA from catalogd's replica count.
 */
export function tagGates(spec: ProfileSpec): Readonly<Record<string, boolean>> {
  return {
    WebhookProviderCertManager: true,
    SingleOwnNamespaceInstallSupport: false,
    WebhookProviderOpenshiftServiceCA: false,
    BoxcutterRuntime: false,
    DeploymentConfig: false,
    ...spec.operatorControllerGates,
    CatalogdHA: spec.catalogdReplicas >= 2,
  };
}

/** `--feature-gates` text of the gates a binary knows; the ones it does not know yet are returned apart. */
export function gateFlag(gates: Readonly<Record<string, boolean>>, known: Readonly<Record<string, boolean>>): { flag: string; unknown: string[] } {
  const entries = Object.entries(gates);
  return {
    flag: entries
      .filter(([g]) => Object.hasOwn(known, g))
      .map(([g, v]) => `${g}=${v}`)
      .join(','),
    unknown: entries.filter(([g]) => !Object.hasOwn(known, g)).map(([g, v]) => `${g}=${v}`),
  };
}

/**
 * A flag table's defaults with `values` over them. A value for a flag the table does not have (a binary that does not
 * have it yet) is left out and named in `missing`.
 */
function flagValues<F extends Record<string, Flag>>(flags: F, values: Readonly<Record<string, string>>, missing: string[]): Record<keyof F, string | boolean | undefined> {
  const out: Record<string, string | boolean | undefined> = {};
  for (const [k, f] of Object.entries(flags)) out[k] = 'default' in f ? (f.default as string | boolean | undefined) : undefined;
  for (const [k, v] of Object.entries(values)) {
    if (Object.hasOwn(flags, k)) out[k] = v;
    else missing.push(`--${k}`);
  }
  return out as Record<keyof F, string | boolean | undefined>;
}

/**
 * Upstream's e2e deployment mounts this registries.conf into operator-controller (helm/olmv1/templates/e2e): two
 * mirror host names whose images are pulled from the e2e registry — here the shared test registry.
 */
export const e2eRegistriesConf = (registryHost: string): string =>
  ['mirrored-registry', 'dynamic-registry']
    .map((h) => `[[registry]]\nprefix = "${h}.operator-controller-e2e.svc.cluster.local:5000"\nlocation = "${registryHost}"\n`)
    .join('\n');

export interface RunningProfile {
  readonly spec: ProfileSpec;
  readonly cluster: ControlPlaneInfo;
  readonly kube: TestKube;
  readonly kubectl: Kubectl;
  /** Where operator-controller keeps its own objects (upstream's `${OLM_NAMESPACE}`, olmv1-system). */
  readonly olmNamespace: string;
  /** The gates scenario tags are checked against. */
  readonly gates: Readonly<Record<string, boolean>>;
  /** Gates and flags of the profile that our binaries do not have yet (not passed; scenarios needing them run and fail). */
  readonly unknownGates: readonly string[];
  /** The controllers run as Pods on a real node (deployed.ts), not in this process. */
  readonly deployed: boolean;
  /** Where Pods reach this machine (the real nodes' gateway), for servers a step runs here (a recording proxy). */
  readonly hostAddress?: string;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export async function startProfile(spec: ProfileSpec): Promise<RunningProfile> {
  const cp = new ControlPlane({ nodes: 2 });
  const work = await mkdtemp(join(tmpdir(), `e2e-${spec.name}-`));
  let catalogd: RunningCatalogd | undefined;
  let operatorController: RunningOperatorController | undefined;
  const stop = async (): Promise<void> => {
    await operatorController?.stop();
    await catalogd?.stop();
    useControlPlane(undefined);
    await cp.stop();
    await rm(work, { recursive: true, force: true });
  };
  try {
    const cluster = await cp.start();
    useControlPlane(cluster);
    const kube = new TestKube(cluster);
    await installCrds(kube, await yamlFiles(join(ROOT, 'config', 'crd', spec.crdDir)));
    await installAdmissionPolicies(kube, join(ROOT, 'config', 'admission'));

    // catalogd's content server speaks HTTPS, with a certificate operator-controller trusts (its --catalogd-cas-dir).
    const cert = join(work, 'tls.crt');
    const key = join(work, 'tls.key');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=catalogd-service',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const casDir = await mkdtemp(join(work, 'cas-'));
    execFileSync('cp', [cert, join(casDir, 'ca.crt')]);

    const missingFlags: string[] = [];
    const catalogdGates = gateFlag(spec.catalogdGates, CATALOGD_FEATURE_GATES);
    const port = await freePort();
    const catalogdValues = flagValues(catalogdFlags, {
      'catalogs-server-addr': `127.0.0.1:${port}`,
      'external-address': `127.0.0.1:${port}`,
      'cache-dir': join(work, 'catalogd-unused'),
      'tls-cert': cert,
      'tls-key': key,
      'feature-gates': catalogdGates.flag,
      'insecure-registries': registry().host,
      // Upstream mounts no registries.conf into catalogd: none (not the machine's).
      'registries-conf': '',
    }, []) as CatalogdFlagValues;
    const { cacheDir: _catalogdCache, ...catalogdOpts } = catalogdOptions(catalogdValues);
    catalogd = await startCatalogd({ options: { ...catalogdOpts, minuteMs: 5_000 } });

    const ocGates = gateFlag(spec.operatorControllerGates, OPERATOR_CONTROLLER_FEATURE_GATES);
    const registriesConf = join(work, 'registries.conf');
    await writeFile(registriesConf, e2eRegistriesConf(registry().host));
    const ocValues = flagValues(operatorControllerFlags, {
      'cache-path': join(work, 'operator-controller-unused'),
      'system-namespace': SYSTEM_NAMESPACE,
      'feature-gates': ocGates.flag,
      'insecure-registries': registry().host,
      'catalogd-cas-dir': casDir,
      'registries-conf': registriesConf,
    }, missingFlags) as OperatorControllerFlagValues;
    const { cachePath: _ocCache, ...ocOpts } = operatorControllerOptions(ocValues);
    operatorController = await startOperatorController(ocOpts);

    const cacheDir = join(work, 'kubectl-cache');
    return {
      spec,
      cluster,
      kube,
      kubectl: new Kubectl(cluster.kubeconfigPath, cacheDir),
      olmNamespace: SYSTEM_NAMESPACE,
      gates: tagGates(spec),
      unknownGates: [
        ...ocGates.unknown.map((g) => `operator-controller ${g}`),
        ...catalogdGates.unknown.map((g) => `catalogd ${g}`),
        ...missingFlags.map((f) => `operator-controller ${f}`),
      ],
      deployed: false,
      async stop() {
        await releaseFinalizers().catch(() => undefined);
        await stop();
      },
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
