// The global pull secret (`--global-pull-secret <namespace>/<name>`): a `kubernetes.io/dockerconfigjson`
// (or legacy `dockercfg`) Secret, watched by an informer, whose auths are the registry
// credentials of every pull. Changes apply to the next pull; a missing Secret means anonymous
// pulls, an unreadable one is logged (once per version) and ignored.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { credentialsFromSecretData, type CredentialProvider } from '../../shared/image/index.ts';
import { Informer, stripManagedFields, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';

export interface Secret extends KubeObject {
  data?: Record<string, string>;
  type?: string;
}

export interface GlobalPullSecret {
  readonly informer: Informer<Secret>;
  readonly credentials: CredentialProvider;
}

/** `<namespace>/<name>` → its parts; throws on anything else. */
export function parseSecretRef(text: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(text);
  if (!m) throw new Error(`must be <namespace>/<name>, got ${JSON.stringify(text)}`);
  return { namespace: m[1]!, name: m[3]! };
}

export function globalPullSecret(options: { client: KubeClient; namespace: string; name: string; logger?: Logger }): GlobalPullSecret {
  const { namespace, name, logger } = options;
  const informer = new Informer<Secret>({
    client: options.client,
    apiVersion: 'v1',
    kind: 'Secret',
    namespace,
    fieldSelector: { 'metadata.name': name },
    transform: stripManagedFields,
    ...(logger && { logger: logger.child({ informer: 'global-pull-secret' }) }),
  });
  let parsedVersion: string | undefined;
  let parsed: CredentialProvider | undefined;
  const current = (): CredentialProvider | undefined => {
    const secret = informer.get(`${namespace}/${name}`);
    if (!secret) return undefined;
    const version = secret.metadata.resourceVersion ?? '';
    if (version !== parsedVersion) {
      parsedVersion = version;
      try {
        parsed = credentialsFromSecretData(secret.data ?? {}, `global pull secret ${namespace}/${name}`);
      } catch (err) {
        parsed = undefined;
        logger?.error('ignoring the global pull secret', { err });
      }
    }
    return parsed;
  };
  return { informer, credentials: { lookup: (domain, path) => current()?.lookup(domain, path) } };
}
