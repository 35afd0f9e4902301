// Kubernetes Events (client-go's recorder for every controller of the project), as `kubectl describe`
// and `kubectl get events` show them. Cluster-scoped objects' events live in `default`, as
// client-go's recorder puts them. As client-go's correlator does, the same event (object, field, type,
// reason, message) again within 10 minutes bumps `count` and `lastTimestamp` of the one already
// written instead of adding another, so a failure retried for hours is one line `(x120 over 2h)`.
// Best effort: a failed event write is logged, never retried.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { KubeClient } from './client.ts';
import { realClock, type Logger } from '../toolkit/index.ts';

/** Where in the object the event is about: client-go's `ObjectReference.fieldPath` (e.g. `status.plan[2]`). */
export interface EventOptions {
  readonly fieldPath?: string;
}

export interface EventRecorder {
  normal(obj: KubeObject, reason: string, message: string, options?: EventOptions): void;
  warning(obj: KubeObject, reason: string, message: string, options?: EventOptions): void;
}

/** How long a repeated event is folded into the one already written (client-go's 10 minutes). */
const AGGREGATE_MS = 10 * 60_000;
/** Distinct recent events remembered for folding. */
const REMEMBERED = 4096;

interface Written {
  readonly name: string;
  readonly namespace: string;
  count: number;
  at: number;
  /** The writes of this event, one after another (a patch must not overtake the create or a later count). */
  chain: Promise<void>;
}

export function eventRecorder(client: KubeClient, component: string, logger: Logger, now: () => number = () => realClock.date().getTime()): EventRecorder {
  const recent = new Map<string, Written>();
  const remember = (key: string, w: Written): void => {
    recent.delete(key);
    recent.set(key, w);
    if (recent.size > REMEMBERED) recent.delete(recent.keys().next().value!);
  };
  // A write's failure is logged and the event forgotten (gone, e.g. by the API server's TTL: the next one starts afresh).
  const settle = (key: string, w: Written, reason: string, write: Promise<unknown>): Promise<void> =>
    write.then(
      () => undefined,
      (err: unknown) => {
        if (recent.get(key) === w) recent.delete(key);
        logger.warn('could not record event', { reason, err });
      },
    );
  const emit = (type: 'Normal' | 'Warning', obj: KubeObject, reason: string, message: string, options: EventOptions = {}): void => {
    const at = now();
    const stamp = new Date(at).toISOString();
    const name = obj.metadata.name ?? 'unknown';
    const text = message.length > 1024 ? `${message.slice(0, 1021)}...` : message;
    const key = JSON.stringify([obj.metadata.uid ?? name, options.fieldPath ?? '', type, reason, text]);
    const prev = recent.get(key);
    if (prev && at - prev.at < AGGREGATE_MS) {
      const count = ++prev.count;
      prev.at = at;
      remember(key, prev);
      const patch = { count, lastTimestamp: stamp };
      prev.chain = prev.chain.then(() => settle(key, prev, reason, client.patch({ apiVersion: 'v1', kind: 'Event', namespace: prev.namespace, name: prev.name }, 'merge', patch)));
      return;
    }
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
        ...(options.fieldPath && { fieldPath: options.fieldPath }),
      },
      type,
      reason,
      message: text,
      source: { component },
      reportingComponent: component,
      reportingInstance: component,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
    };
    const written: Written = { name: event.metadata.name, namespace: event.metadata.namespace, count: 1, at, chain: Promise.resolve() };
    remember(key, written);
    written.chain = settle(key, written, reason, client.create(event));
  };
  return {
    normal: (obj, reason, message, options) => emit('Normal', obj, reason, message, options),
    warning: (obj, reason, message, options) => emit('Warning', obj, reason, message, options),
  };
}
