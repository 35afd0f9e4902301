// operator-controller's own flags (names as upstream's where upstream has the flag) and their
// translation into OperatorControllerOptions. Problems are a UsageError naming the flag.
import { parseSecretRef } from '../../internal/catalogd/controller/pull-secret.ts';
import type { OperatorControllerOptions } from '../../internal/operator-controller/options.ts';
import { UsageError, type Flag } from '../../internal/shared/manager/options.ts';

export const operatorControllerFlags = {
  'cache-path': { type: 'string', default: '/var/cache', help: 'directory of the bundle image cache (unpack/)' },
  'system-namespace': {
    type: 'string',
    default: process.env.POD_NAMESPACE || 'olmv1-system',
    help: 'namespace of operator-controller’s own objects (revision records); default: env POD_NAMESPACE, then olmv1-system',
  },
  'catalogd-cas-dir': { type: 'string', help: 'directory of CA certificates (PEM) trusted for catalogd’s content server' },
  'pull-cas-dir': { type: 'string', help: 'directory of CA certificates (PEM) trusted for registries, besides the system ones' },
  'global-pull-secret': { type: 'string', help: '<namespace>/<name> of a dockerconfigjson Secret whose credentials every pull uses' },
  'insecure-registries': {
    type: 'string',
    default: process.env.OLM_INSECURE_REGISTRIES ?? '',
    help: 'comma-separated host[:port] registries reached over plain HTTP (default: env OLM_INSECURE_REGISTRIES)',
  },
} as const satisfies Record<string, Flag>;

export type OperatorControllerFlagValues = Record<keyof typeof operatorControllerFlags, string | boolean | undefined>;

const str = (v: string | boolean | undefined): string => (typeof v === 'string' ? v.trim() : '');

export function operatorControllerOptions(values: OperatorControllerFlagValues): OperatorControllerOptions {
  const cachePath = str(values['cache-path']);
  if (cachePath === '') throw new UsageError('operator-controller: --cache-path: must not be empty');
  const systemNamespace = str(values['system-namespace']);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(systemNamespace)) {
    throw new UsageError(`operator-controller: --system-namespace: must be a namespace name, got ${JSON.stringify(systemNamespace)}`);
  }
  const secret = str(values['global-pull-secret']);
  let globalPullSecret: OperatorControllerOptions['globalPullSecret'];
  if (secret !== '') {
    try {
      globalPullSecret = parseSecretRef(secret);
    } catch (err) {
      throw new UsageError(`operator-controller: --global-pull-secret: ${(err as Error).message}`);
    }
  }
  const insecureRegistries = str(values['insecure-registries'])
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const catalogdCasDir = str(values['catalogd-cas-dir']);
  const pullCasDir = str(values['pull-cas-dir']);
  return {
    cachePath,
    systemNamespace,
    insecureRegistries,
    ...(globalPullSecret && { globalPullSecret }),
    ...(catalogdCasDir !== '' && { catalogdCasDir }),
    ...(pullCasDir !== '' && { pullCasDir }),
  };
}
