// packageServerSetup: the package server beside the CatalogSource controller — its provider over the CatalogSource
// informer and loaded content, the requestheader configuration (re-read every minute), the SubjectAccessReview
// authorizer, the HTTPS server and its certificate: the files of `certDir`, or else the Secret the leader keeps
// (certificate.ts), served by every replica as its informer sees it change.
import { join } from 'node:path';
import type { CatalogSource } from '../../../api/operators/index.ts';
import type { ContentRegistry } from '../catalogsource/index.ts';
import { createSignedServingPair, generateCA } from '../csv/index.ts';
import type { Controller } from '../../shared/controller/index.ts';
import { informers, type Informer } from '../../shared/kube/index.ts';
import { clockOf, type ManagerContext, type ManagerParts } from '../../shared/manager/index.ts';
import { sleep, type Clock } from '../../shared/toolkit/index.ts';
import { watchCertificate } from '../../shared/tlsprofile/index.ts';
import { readRequestHeaderConfig, subjectAccessReviewer, type RequestHeaderConfig } from './auth.ts';
import { PACKAGES_APISERVICE, certificateController, servingHosts, servingPair, servingSecretName, type APIService, type ServiceRef, type TLSSecret } from './certificate.ts';
import { packageProvider } from './provider.ts';
import { listen, type RunningServer } from './server.ts';
import { PackageIndex } from './watch.ts';

export interface PackageServerSetupOptions {
  /** Where to listen (`--package-server-bind-address`). */
  readonly host: string;
  readonly port: number;
  readonly globalCatalogNamespace: string;
  /** The CatalogSource informer (its events keep the watch index current; without onEvent, only content changes do). */
  readonly catalogSources: { list(): CatalogSource[]; onEvent?(handler: (type: string, obj: CatalogSource) => void): () => void };
  readonly contents: ContentRegistry;
  /**
   * A directory with tls.crt and tls.key (e.g. a cert-manager Certificate's Secret mounted), read at start and again
   * when they change; the APIService's caBundle is then the provider's business (cert-manager's cainjector). Without it the leader keeps the certificate in a Secret
   * and the APIService's caBundle (certificate.ts).
   */
  readonly certDir?: string;
  /** The Service in front of the package server, whose names the kept certificate is for (default olmv1-system/packageserver-service). */
  readonly service?: ServiceRef;
}

export interface PackageServerParts extends ManagerParts {
  /** The port listened on (the one asked for, or the one picked for port 0). */
  readonly port: number;
}

export const DEFAULT_SERVICE: ServiceRef = { namespace: 'olmv1-system', name: 'packageserver-service' };

/** Until the Secret is read: a pair nobody trusts (for a day), so the APIService is not Available before then. */
function untrustedPair(service: ServiceRef, clock: Clock): { certPEM: string; keyPEM: string } {
  const notAfter = new Date(clock.date().getTime() + 24 * 3600_000);
  return createSignedServingPair(notAfter, generateCA(notAfter), servingHosts(service));
}

export function packageServerSetup(options: PackageServerSetupOptions): (ctx: ManagerContext) => Promise<PackageServerParts> {
  return async (ctx) => {
    const { client, logger } = ctx;
    const clock = clockOf(ctx);
    const log = logger.child({ component: 'package-server' });
    let server: RunningServer | undefined = undefined; // set once listening
    // Read now and again when the files change (a renewed certificate-manager Secret): no restart.
    const files =
      options.certDir &&
      (await watchCertificate({
        certFile: join(options.certDir, 'tls.crt'),
        keyFile: join(options.certDir, 'tls.key'),
        logger: log,
        onChange: (pair) => {
          if (!server) throw new Error('the package server is not listening yet');
          server.setCertificate(pair.cert.toString('utf8'), pair.key.toString('utf8'));
        },
      }));
    const { certPEM, keyPEM } = files
      ? { certPEM: files.current.cert.toString('utf8'), keyPEM: files.current.key.toString('utf8') }
      : untrustedPair(options.service ?? DEFAULT_SERVICE, clock);
    let config: RequestHeaderConfig | undefined = await readRequestHeaderConfig(client, log);
    const index = new PackageIndex({ catalogSources: options.catalogSources, contents: options.contents, startRevision: clock.date().getTime() });
    // No polling: a CatalogSource's manifests are computed again when its content or its object changes.
    const unsubscribe = [
      options.contents.onChange?.((namespace, name) => index.refresh(namespace, name)),
      options.catalogSources.onEvent?.((type, cs) => index.refresh(cs.metadata.namespace ?? '', cs.metadata.name ?? '', type === 'delete' ? null : cs)),
    ];
    index.refreshAll();
    const listening = await listen(
      {
        provider: packageProvider({ ...options, index }),
        watch: { index, globalCatalogNamespace: options.globalCatalogNamespace },
        requestHeader: () => config,
        authorize: subjectAccessReviewer(client, clock),
        clock,
        certPEM,
        keyPEM,
        logger: log,
      },
      options.host,
      options.port,
    );
    server = listening;
    log.info('serving packages.operators.coreos.com/v1', { host: options.host, port: listening.port });
    const kept: { informers: Informer[]; controllers: Controller[]; close: () => void } = { informers: [], controllers: [], close: () => undefined };
    if (!options.certDir) {
      const service = options.service ?? DEFAULT_SERVICE;
      const secret = `${service.namespace}/${servingSecretName(service)}`;
      const informer = informers(client, log);
      // Each by its name: what the component's RBAC grants (resourceNames).
      const secrets = informer<TLSSecret>('v1', 'Secret', { name: 'packageserver-secret', namespace: service.namespace, fieldSelector: { 'metadata.name': servingSecretName(service) } });
      const apiServices = informer<APIService>('apiregistration.k8s.io/v1', 'APIService', { name: 'packageserver-apiservice', fieldSelector: { 'metadata.name': PACKAGES_APISERVICE } });
      let served = '';
      const serve = (type: string, obj: TLSSecret): void => {
        if (type === 'delete') return; // the leader issues a new one; the old pair is served until then
        const pair = servingPair(obj);
        if (!pair) {
          log.error('the package server Secret holds no usable tls.crt and tls.key; serving the previous certificate', { secret });
          return;
        }
        if (pair.certPEM === served) return;
        try {
          listening.setCertificate(pair.certPEM, pair.keyPEM);
          served = pair.certPEM;
          log.info('serving the certificate of the package server Secret', { secret });
        } catch (err) {
          log.error('cannot load the package server Secret\'s certificate; serving the previous one', { secret, err });
        }
      };
      kept.close = secrets.onEvent(serve);
      kept.informers.push(secrets, apiServices);
      kept.controllers.push(certificateController({ client, service, secrets, apiServices, logger: log, clock }));
    }
    const refresh = async (signal: AbortSignal): Promise<void> => {
      while (!signal.aborted) {
        await sleep(60_000, signal); // the requestheader ConfigMap re-read every minute
        if (signal.aborted) return;
        const next = await readRequestHeaderConfig(client, log);
        if (next && next.clientCA !== config?.clientCA) listening.setClientCA(next.clientCA);
        if (next) config = next;
      }
    };
    return {
      informers: kept.informers,
      controllers: kept.controllers,
      runnables: [refresh],
      closers: [() => listening.close(), async () => [...unsubscribe, kept.close, () => files && files.stop()].forEach((u) => u?.())],
      port: listening.port,
    };
  };
}
