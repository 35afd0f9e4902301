// operator-controller's own flags (names as upstream's where upstream has the flag) and their
// translation into OperatorControllerOptions. Problems are a UsageError naming the flag.
import type { OperatorControllerOptions } from '../../internal/operator-controller/index.ts';
import { registryFlags, registryOptions, UsageError, type Flag } from '../../internal/shared/manager/index.ts';

export const operatorControllerFlags = {
  'cache-path': { type: 'string', default: '/var/cache', help: 'directory of the bundle image cache (unpack/)' },
  'system-namespace': {
    type: 'string',
    default: process.env.POD_NAMESPACE || 'olmv1-system',
    help: 'namespace of operator-controller’s own objects (revision records); default: env POD_NAMESPACE, then olmv1-system',
  },
  'catalogd-cas-dir': { type: 'string', help: 'directory of CA certificates (PEM) trusted for catalogd’s content server' },
  ...registryFlags,
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
  const catalogdCasDir = str(values['catalogd-cas-dir']);
  return {
    cachePath,
    systemNamespace,
    ...registryOptions('operator-controller', values),
    ...(catalogdCasDir !== '' && { catalogdCasDir }),
  };
}
