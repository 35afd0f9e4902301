// Kubernetes Events about ClusterExtensions (installs, upgrades, failures), as `kubectl describe`
// and `kubectl get events` show them. Cluster-scoped objects' events live in `default`, as
// client-go's recorder puts them. Best effort: a failed event write is logged, never retried.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';

export interface EventRecorder {
  normal(obj: KubeObject, reason: string, message: string): void;
  warning(obj: KubeObject, reason: string, message: string): void;
}

export function eventRecorder(client: KubeClient, component: string, logger: Logger): EventRecorder {
  const emit = (type: 'Normal' | 'Warning', obj: KubeObject, reason: string, message: string): void => {
    const now = new Date().toISOString();
    const name = obj.metadata.name ?? 'unknown';
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace: obj.metadata.namespace ?? 'default' },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name,
        ...(obj.metadata.namespace && { namespace: obj.metadata.namespace }),
        ...(obj.metadata.uid && { uid: obj.metadata.uid }),
        ...(obj.metadata.resourceVersion && { resourceVersion: obj.metadata.resourceVersion }),
      },
      type,
      reason,
      message: message.length > 1024 ? `${message.slice(0, 1021)}...` : message,
      source: { component },
      reportingComponent: component,
      reportingInstance: component,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    client.create(event).catch((err: unknown) => logger.warn('could not record event', { reason, err }));
  };
  return {
    normal: (obj, reason, message) => emit('Normal', obj, reason, message),
    warning: (obj, reason, message) => emit('Warning', obj, reason, message),
  };
}
