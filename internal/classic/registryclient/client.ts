// A typed client of the registry gRPC API (`api.Registry`, registry.proto beside this file) that
// CatalogSources with spec.address point at, e.g. `opm serve`. Field names are the proto's.
// @grpc/grpc-js and @grpc/proto-loader are loaded with the first client, not at start-up: only
// spec.address CatalogSources need them (~25 MiB RSS, bench/footprint.ts).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Grpc from '@grpc/grpc-js';
import type * as ProtoLoader from '@grpc/proto-loader';
import { realClock } from '../../shared/toolkit/index.ts';

const load = createRequire(import.meta.url);
let grpcLib: typeof Grpc | undefined;
const grpc = (): typeof Grpc => (grpcLib ??= load('@grpc/grpc-js') as typeof Grpc);

export interface Deprecation {
  message: string;
}
export interface Channel {
  name: string;
  /** The channel head's CSV (bundle) name. */
  csvName: string;
  deprecation: Deprecation | null;
}
export interface Package {
  name: string;
  channels: Channel[];
  defaultChannelName: string;
  deprecation: Deprecation | null;
}
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
}
export interface Dependency {
  type: string;
  value: string;
}
export interface Property {
  type: string;
  /** JSON text. */
  value: string;
}
export interface Bundle {
  csvName: string;
  packageName: string;
  channelName: string;
  /** The CSV as JSON text ("" unless the server has it). */
  csvJson: string;
  /** Each manifest of the bundle as JSON text (empty for image-only entries). */
  object: string[];
  /** The bundle image. */
  bundlePath: string;
  providedApis: GroupVersionKind[];
  requiredApis: GroupVersionKind[];
  version: string;
  skipRange: string;
  dependencies: Dependency[];
  properties: Property[];
  replaces: string;
  skips: string[];
  deprecation: Deprecation | null;
}

export interface RegistryClientOptions {
  /** Deadline of each call in milliseconds (default 30 s). */
  readonly timeoutMs?: number;
  /** Channel options of @grpc/grpc-js, e.g. `grpc.max_reconnect_backoff_ms` (gRPC's default backoff tops out at 120 s). */
  readonly channelOptions?: Grpc.ChannelOptions;
}

/** A channel's connectivity state, spelled as grpc-go's connectivity.State.String(). */
export type ConnectivityState = 'IDLE' | 'CONNECTING' | 'READY' | 'TRANSIENT_FAILURE' | 'SHUTDOWN';

/**
 * A gRPC deadline `ms` from now: grpc-js takes a wall-clock time and compares it with the system clock itself, so it
 * is the system's wall time (the toolkit's realClock), never an injected clock.
 */
const grpcDeadline = (ms: number): number => realClock.date().getTime() + ms;

const protoFile = fileURLToPath(new URL('./registry.proto', import.meta.url));
let serviceCtor: Grpc.ServiceClientConstructor | undefined;

function registryService(): Grpc.ServiceClientConstructor {
  if (serviceCtor) return serviceCtor;
  const definition = (load('@grpc/proto-loader') as typeof ProtoLoader).loadSync(protoFile, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    arrays: true,
    oneofs: true,
  });
  const api = grpc().loadPackageDefinition(definition)['api'] as Grpc.GrpcObject;
  return (serviceCtor = api['Registry'] as Grpc.ServiceClientConstructor);
}

type Unary = (req: object, opts: Grpc.CallOptions, cb: (err: Grpc.ServiceError | null, res: unknown) => void) => Grpc.ClientUnaryCall;
type Streaming = (req: object, opts: Grpc.CallOptions) => Grpc.ClientReadableStream<unknown>;

/** One connection to a registry server at `host:port` (plaintext, as CatalogSource spec.address). */
export class RegistryClient {
  private readonly client: Grpc.Client;
  private readonly timeoutMs: number;

  constructor(address: string, options: RegistryClientOptions = {}) {
    const Ctor = registryService();
    this.client = new Ctor(address, grpc().credentials.createInsecure(), options.channelOptions ?? {});
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Names of every package, in the server's order. */
  async listPackages(): Promise<string[]> {
    return (await this.stream<{ name: string }>('ListPackages', {})).map((p) => p.name);
  }

  getPackage(name: string): Promise<Package> {
    return this.unary<Package>('GetPackage', { name });
  }

  getBundle(pkgName: string, channelName: string, csvName: string): Promise<Bundle> {
    return this.unary<Bundle>('GetBundle', { pkgName, channelName, csvName });
  }

  /** The head of a channel (deprecated upstream, still served). */
  getBundleForChannel(pkgName: string, channelName: string): Promise<Bundle> {
    return this.unary<Bundle>('GetBundleForChannel', { pkgName, channelName });
  }

  /** Every bundle of every channel: a bundle in two channels comes twice, once per channel. */
  listBundles(): Promise<Bundle[]> {
    return this.stream<Bundle>('ListBundles', {});
  }

  /** The bundle of `channelName` in `pkgName` that replaces `csvName` (RPC GetBundleThatReplaces). */
  getReplacementBundleInChannel(csvName: string, pkgName: string, channelName: string): Promise<Bundle> {
    return this.unary<Bundle>('GetBundleThatReplaces', { csvName, pkgName, channelName });
  }

  /** The channel's state now; `connect` starts connecting an IDLE channel (grpc-go's Connect()). */
  state(connect = false): ConnectivityState {
    return grpc().connectivityState[this.client.getChannel().getConnectivityState(connect)] as ConnectivityState;
  }

  /**
   * Calls `onChange(state)` on every state change until `close()`, and asks an IDLE channel to
   * connect again each time (as upstream's source store does), so a stopped server is retried.
   */
  watch(onChange: (state: ConnectivityState) => void): void {
    const channel = this.client.getChannel();
    const loop = (current: Grpc.connectivityState): void => {
      if (current === grpc().connectivityState.SHUTDOWN) return;
      // A far deadline: the callback fires on a change (or with an error at the deadline, then we loop).
      channel.watchConnectivityState(current, grpcDeadline(3_600_000), (err) => {
        const next = channel.getConnectivityState(true);
        if (!err && next !== current) onChange(grpc().connectivityState[next] as ConnectivityState);
        loop(next);
      });
    };
    loop(channel.getConnectivityState(true));
  }

  close(): void {
    this.client.close();
  }

  private method<T>(name: string): T {
    const fn = (this.client as unknown as Record<string, unknown>)[name];
    if (typeof fn !== 'function') throw new Error(`registry.proto has no method ${name}`);
    return (fn as (...args: unknown[]) => unknown).bind(this.client) as T;
  }

  private unary<T>(name: string, req: object): Promise<T> {
    const call = this.method<Unary>(name);
    return new Promise((resolve, reject) => {
      call(req, { deadline: grpcDeadline(this.timeoutMs) }, (err, res) => (err ? reject(err) : resolve(res as T)));
    });
  }

  private stream<T>(name: string, req: object): Promise<T[]> {
    const call = this.method<Streaming>(name)(req, { deadline: grpcDeadline(this.timeoutMs) });
    return new Promise((resolve, reject) => {
      const out: T[] = [];
      call.on('data', (d: unknown) => out.push(d as T));
      call.on('error', reject);
      call.on('end', () => resolve(out));
    });
  }
}

/** gRPC status codes callers branch on (NOT_FOUND for a missing package or bundle, UNAVAILABLE when the server is down). */
export const RegistryStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const satisfies Record<keyof typeof Grpc.status, Grpc.status>;
