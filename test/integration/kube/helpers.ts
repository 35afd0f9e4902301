// Shared bits of the kube client integration tests: clients for the test control plane, an
// event recorder for informers, a log sink, and a throw-away CRD.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { KubeClient, type Informer, type InformerEventType } from '../../../internal/shared/kube/index.ts';
import type { Logger } from '../../../internal/shared/toolkit/index.ts';
import { kubeconfig, type ControlPlaneInfo } from '../../support/control-plane.ts';
import { waitFor } from '../../support/net.ts';

/** Writes a kubeconfig for `server` with `token` and returns its path. */
export async function kubeconfigFile(info: ControlPlaneInfo, token: string, server = info.server): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kube-client-'));
  const path = join(dir, 'kubeconfig');
  await writeFile(path, kubeconfig(server, info.caPem, token), { mode: 0o600 });
  return path;
}

/** A client of the control plane as the admin (system:masters). */
export function adminClient(info: ControlPlaneInfo, logger?: Logger): Promise<KubeClient> {
  return KubeClient.fromConfig({ kubeconfig: info.kubeconfigPath, ...(logger && { logger }) });
}

export async function clientWithToken(info: ControlPlaneInfo, token: string): Promise<KubeClient> {
  return KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(info, token) });
}

export interface LogLine {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** A logger that keeps every line (and prints warnings and errors when KUBE_TEST_LOG is set). */
export function memoryLogger(): Logger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const add =
    (level: LogLine['level']) =>
    (msg: string, fields: Readonly<Record<string, unknown>> = {}): void => {
      lines.push({ level, msg, fields });
      if (process.env['KUBE_TEST_LOG'] && level !== 'debug') console.log(level, msg, fields);
    };
  const logger = { lines, error: add('error'), warn: add('warn'), info: add('info'), debug: add('debug'), child: () => logger };
  return logger;
}

export interface Recorded {
  readonly type: InformerEventType;
  readonly name: string;
  readonly data: Record<string, string> | undefined;
}

/** Records an informer's events as `type name`, with ConfigMap data. */
export function record(informer: Informer<KubeObject>): Recorded[] {
  const events: Recorded[] = [];
  informer.onEvent((type, obj) => events.push({ type, name: obj.metadata.name ?? '', data: obj['data'] as Record<string, string> | undefined }));
  return events;
}

export const until = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> =>
  waitFor(what, async () => check(), { timeoutMs, intervalMs: 100 });

export const configMap = (namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels && { labels }) },
  data,
});

/** Creates a namespace with a random suffix. */
export async function namespace(client: KubeClient, prefix: string): Promise<string> {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/** A namespaced CRD `Widget` in `group` with a status subresource and free-form spec/status. */
export async function installWidgetCrd(client: KubeClient, group: string): Promise<void> {
  const free = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  await client.create({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: free, status: free } } },
        },
      ],
    },
  });
  await until(`CRD widgets.${group} established`, async () => {
    const crd = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: `widgets.${group}`,
    });
    return !!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  });
}
