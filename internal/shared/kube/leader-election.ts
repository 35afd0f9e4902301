// Lease-based leader election (coordination.k8s.io/v1), client-go's leaderelection with
// controller-runtime's defaults: lease 15 s, renew deadline 10 s, retry every 2 s.
//
// - Acquire: every retry period (+ up to 20 % jitter) read the Lease; take it if nobody holds it,
//   we hold it, or its record has not changed for `leaseDuration` by our own clock (client-go
//   measures from when *we* saw the record change, so clock skew between nodes does not matter).
//   Writes carry the resourceVersion read, so of two candidates only one wins (the other gets 409).
// - Lead: `onStartedLeading(signal)` starts the reconcilers; renew every retry period. Leadership
//   is lost when renewing has not succeeded for `renewDeadline` (each request is cut off at that
//   deadline too) or when a read shows someone else holding the Lease. Losing aborts `signal`.
// - Stop (the `run` signal aborts, e.g. SIGTERM): abort the reconcilers, wait briefly for them,
//   then release the Lease (empty holderIdentity, 1 s duration) so a successor takes over at once.
// Times are MicroTime: RFC 3339 with exactly six fractional digits.
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { noopLogger, realClock, sleep, type Clock, type Logger } from '../toolkit/index.ts';
import type { KubeClient } from './client.ts';
import { isNotFound } from './errors.ts';
import type { ObjectRef } from './types.ts';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  [key: string]: unknown;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** metav1.MicroTime: `2026-11-22T07:40:00.123000Z` (six fractional digits, UTC). */
export function microTime(date: Date = realClock.date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export interface LeaderElectionOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  /** Lease name, e.g. `catalogd-operator-lock`. */
  readonly name: string;
  /** Unique per process; default `<hostname>_<uuid>` like controller-runtime. */
  readonly identity?: string;
  /** Start the reconcilers; `signal` aborts when leadership ends. A returned promise should settle once they stopped. */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called once when leadership ends (lost or released). */
  readonly onStoppedLeading?: () => void;
  /** Called whenever a different holder is observed (our own identity included). */
  readonly onNewLeader?: (identity: string) => void;
  readonly logger?: Logger;
  /** Renew deadlines and lease expiry (measured from when this process saw the record change); default the real clock. */
  readonly clock?: Clock;
}

/** How `run` ended: `stopped` by its signal (lease released), or leadership `lost`. */
export type ElectionOutcome = 'stopped' | 'lost';

const JITTER = 0.2;
/** controller-runtime's lease duration, renew deadline and retry period. */
const LEASE_MS = 15_000;
const RENEW_MS = 10_000;
const RETRY_MS = 2_000;
/** The fields of the Lease record whose change restarts the expiry clock (client-go's observed record). */
const RECORD_FIELDS = ['holderIdentity', 'renewTime', 'acquireTime', 'leaseTransitions', 'leaseDurationSeconds'] as const;

export class LeaderElector {
  readonly identity: string;
  readonly #o: LeaderElectionOptions;
  readonly #ref: ObjectRef;
  readonly #log: Logger;
  readonly #clock: Clock;
  /** The record as last read or written, and when (by our clock) it last changed. */
  #observed: { spec: LeaseSpec; at: number } | undefined;
  #leading = false;
  #takenByOther = false;
  #running = false;

  constructor(options: LeaderElectionOptions) {
    this.#o = options;
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    this.#ref = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: options.namespace, name: options.name };
    this.#log = options.logger ?? noopLogger;
    this.#clock = options.clock ?? realClock;
  }

  /** The holder we last observed, if any. */
  get leader(): string | undefined {
    return this.#observed?.spec.holderIdentity || undefined;
  }

  /**
   * Campaigns until elected, leads until `signal` aborts (→ `stopped`, lease released) or the
   * lease is lost (→ `lost`; the caller should exit, as controller-runtime's manager does).
   * Resolves `stopped` without leading if `signal` aborts first.
   */
  async run(signal: AbortSignal): Promise<ElectionOutcome> {
    if (this.#running) throw new Error('leader election: run() is already running');
    this.#running = true;
    try {
      return await this.#run(signal);
    } finally {
      this.#running = false;
    }
  }

  async #run(signal: AbortSignal): Promise<ElectionOutcome> {
    const lease = `${this.#ref.namespace}/${this.#ref.name}`;
    this.#log.info('attempting to acquire leader lease', { lease, identity: this.identity });
    while (!signal.aborted) {
      if (await this.#tryAcquireOrRenew(this.#deadline(signal, RENEW_MS))) break;
      await sleep(RETRY_MS * (1 + JITTER * Math.random()), signal);
    }
    if (signal.aborted) return 'stopped';

    this.#leading = true;
    this.#takenByOther = false;
    this.#log.info('successfully acquired lease', { lease, identity: this.identity });
    const leadership = new AbortController();
    // The leader's caches and controllers all listen on it.
    setMaxListeners(0, leadership.signal);
    // A throw and a rejection alike are logged (the executor turns the throw into the rejection).
    const started = new Promise<void>((resolve) => resolve(this.#o.onStartedLeading(leadership.signal))).catch((err: unknown) =>
      this.#log.error('onStartedLeading failed', { lease, err }),
    );

    let lastRenew = this.#clock.now();
    let outcome: ElectionOutcome = 'stopped';
    while (!signal.aborted) {
      await sleep(RETRY_MS, signal);
      if (signal.aborted) break;
      const left = lastRenew + RENEW_MS - this.#clock.now();
      if (left > 0 && (await this.#tryAcquireOrRenew(this.#deadline(signal, left)))) {
        lastRenew = this.#clock.now();
        continue;
      }
      if (signal.aborted) break;
      if (this.#takenByOther || this.#clock.now() - lastRenew >= RENEW_MS) {
        outcome = 'lost';
        this.#log.error('leader election lost', { lease, identity: this.identity, holder: this.leader ?? '', sinceRenewMs: this.#clock.now() - lastRenew });
        break;
      }
    }

    this.#leading = false;
    leadership.abort(new Error(outcome === 'lost' ? 'leader election lost' : 'leader election stopped'));
    // Let the reconcilers wind down before a successor may start its own (bounded).
    await Promise.race([started, sleep(RENEW_MS)]);
    if (outcome === 'stopped') await this.#release();
    try {
      this.#o.onStoppedLeading?.();
    } catch (err) {
      this.#log.error('onStoppedLeading failed', { lease, err });
    }
    return outcome;
  }

  /** A signal that aborts with `parent` or after `ms`. */
  #deadline(parent: AbortSignal, ms: number): AbortSignal {
    return AbortSignal.any([parent, AbortSignal.timeout(Math.max(1, Math.round(ms)))]);
  }

  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.#clock.now();
    const wall = this.#clock.date();
    const spec = (holder: string, acquireTime: string, transitions: number): LeaseSpec => ({
      holderIdentity: holder,
      leaseDurationSeconds: Math.ceil(LEASE_MS / 1000),
      acquireTime,
      renewTime: microTime(wall),
      leaseTransitions: transitions,
    });
    let current: Lease;
    try {
      current = await this.#o.client.get<Lease>(this.#ref, { signal });
    } catch (err) {
      if (!isNotFound(err)) {
        this.#log.warn('error retrieving lease', { lease: this.#ref.name, err });
        return false;
      }
      const fresh = spec(this.identity, microTime(wall), 0);
      try {
        const created = await this.#o.client.create<Lease>(
          { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.#ref.name, namespace: this.#ref.namespace }, spec: fresh },
          { signal },
        );
        this.#observe(created.spec ?? fresh, now);
        return true;
      } catch (createErr) {
        this.#log.info('could not create lease', { lease: this.#ref.name, err: createErr });
        return false;
      }
    }

    const record = current.spec ?? {};
    this.#observe(record, now);
    const holder = record.holderIdentity ?? '';
    const durationMs = (record.leaseDurationSeconds ?? Math.ceil(LEASE_MS / 1000)) * 1000;
    const expired = this.#observed!.at + durationMs <= now;
    if (holder && holder !== this.identity && !expired) {
      if (this.#leading) this.#takenByOther = true;
      return false;
    }
    const next =
      holder === this.identity
        ? spec(this.identity, record.acquireTime ?? microTime(wall), record.leaseTransitions ?? 0)
        : spec(this.identity, microTime(wall), (record.leaseTransitions ?? 0) + 1);
    try {
      const updated = await this.#o.client.update<Lease>({ ...current, spec: { ...record, ...next } }, { signal });
      this.#observe(updated.spec ?? next, now);
      return true;
    } catch (err) {
      this.#log.info('failed to update lease', { lease: this.#ref.name, err });
      return false;
    }
  }

  #observe(record: LeaseSpec, now: number): void {
    const prev = this.#observed?.spec;
    if (prev !== undefined && RECORD_FIELDS.every((f) => prev[f] === record[f])) return;
    this.#observed = { spec: record, at: now };
    if ((prev?.holderIdentity ?? '') !== (record.holderIdentity ?? '') && record.holderIdentity) {
      try {
        this.#o.onNewLeader?.(record.holderIdentity);
      } catch (err) {
        this.#log.error('onNewLeader failed', { err });
      }
    }
  }

  /** Gives the lease up if we still hold it: empty holder, 1 s duration. */
  async #release(): Promise<void> {
    const signal = AbortSignal.timeout(RENEW_MS);
    try {
      const current = await this.#o.client.get<Lease>(this.#ref, { signal });
      if (current.spec?.holderIdentity !== this.identity) return;
      const now = microTime(this.#clock.date());
      await this.#o.client.update<Lease>(
        {
          ...current,
          spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: current.spec.leaseTransitions ?? 0 },
        },
        { signal },
      );
      this.#log.info('released leader lease', { lease: this.#ref.name, identity: this.identity });
    } catch (err) {
      this.#log.warn('could not release leader lease', { lease: this.#ref.name, err });
    }
  }
}
