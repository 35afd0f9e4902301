// Flags every controller binary takes. Parsed with node:util parseArgs; unknown flags are an
// error naming the flag, so a typo never silently falls back to a default.
import { parseArgs } from 'node:util';
import type { LogLevel } from '../observability/index.ts';

export interface ManagerOptions {
  readonly kubeconfig?: string;
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace: string;
  readonly leaderElectionId: string;
  readonly healthProbeBindAddress: string;
  readonly metricsBindAddress: string;
  readonly logLevel: LogLevel;
}

export interface Flag {
  readonly type: 'string' | 'boolean';
  readonly default?: string | boolean;
  readonly help: string;
}

const common = {
  kubeconfig: { type: 'string', help: 'path to a kubeconfig; default $KUBECONFIG, then ~/.kube/config, then in-cluster' },
  'leader-elect': { type: 'boolean', default: false, help: 'elect a leader through a Lease; only the leader reconciles' },
  'leader-election-namespace': { type: 'string', default: 'olmv1-system', help: 'namespace of the leader-election Lease' },
  'health-probe-bind-address': { type: 'string', default: ':8081', help: 'address of /healthz and /readyz' },
  'metrics-bind-address': { type: 'string', default: ':8080', help: 'address of /metrics; "0" turns it off' },
  'log-level': { type: 'string', default: process.env.LOG_LEVEL ?? 'info', help: 'error, warn, info or debug' },
  help: { type: 'boolean', default: false, help: 'print this help' },
} as const satisfies Record<string, Flag>;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const LEVELS = new Set(['error', 'warn', 'info', 'debug']);

/**
 * Parses argv into the common options plus the binary's own flags (`extra`).
 * `--flag=value` and `--flag value` both work; booleans accept `--flag=false`.
 */
export function parseManagerArgs<E extends Record<string, Flag>>(
  binary: string,
  argv: readonly string[],
  extra: E = {} as E,
): { options: ManagerOptions; extra: Record<keyof E, string | boolean | undefined>; help?: string } {
  const flags: Record<string, Flag> = { ...common, ...extra };
  // parseArgs has no `--bool=false`; normalise it to the bare flag or drop it.
  const args: string[] = [];
  for (const a of argv) {
    const m = /^--([^=]+)=(true|false)$/.exec(a);
    if (m && flags[m[1]!]?.type === 'boolean') {
      if (m[2] === 'true') args.push(`--${m[1]}`);
      else args.push(`--no-${m[1]}`);
    } else args.push(a);
  }
  const negated = new Set<string>();
  const filtered = args.filter((a) => {
    const m = /^--no-(.+)$/.exec(a);
    if (m && flags[m[1]!]?.type === 'boolean') {
      negated.add(m[1]!);
      return false;
    }
    return true;
  });
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: filtered,
      options: Object.fromEntries(Object.entries(flags).map(([k, f]) => [k, { type: f.type, default: f.default }])) as never,
      allowPositionals: false,
      strict: true,
    }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError(`${binary}: ${(err as Error).message}`);
  }
  for (const n of negated) values[n] = false;
  if (values.help) return { options: undefined as never, extra: undefined as never, help: usage(binary, flags) };
  const logLevel = String(values['log-level']);
  if (!LEVELS.has(logLevel)) throw new UsageError(`${binary}: --log-level must be one of error, warn, info, debug; got "${logLevel}"`);
  const options: ManagerOptions = {
    kubeconfig: values.kubeconfig as string | undefined,
    leaderElect: values['leader-elect'] === true,
    leaderElectionNamespace: String(values['leader-election-namespace']),
    leaderElectionId: `${binary}.olm.operatorframework.io`,
    healthProbeBindAddress: String(values['health-probe-bind-address']),
    metricsBindAddress: String(values['metrics-bind-address']),
    logLevel: logLevel as LogLevel,
  };
  const own = Object.fromEntries(Object.keys(extra).map((k) => [k, values[k]])) as Record<keyof E, string | boolean | undefined>;
  return { options, extra: own };
}

function usage(binary: string, flags: Record<string, Flag>): string {
  const lines = [`Usage: ${binary} [flags]`, '', 'Flags:'];
  for (const [name, f] of Object.entries(flags)) {
    const def = f.default === undefined || f.default === '' ? '' : ` (default ${JSON.stringify(f.default)})`;
    lines.push(`  --${name}${f.type === 'string' ? ' string' : ''}`.padEnd(36) + f.help + def);
  }
  return lines.join('\n');
}

/** Splits ":8081" / "127.0.0.1:8081" / "0" into host and port; port 0 with "0" means off. */
export function parseBindAddress(addr: string): { host: string; port: number } | undefined {
  if (addr === '0' || addr === '') return undefined;
  const i = addr.lastIndexOf(':');
  const host = i <= 0 ? '0.0.0.0' : addr.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(i < 0 ? addr : addr.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid bind address "${addr}"`);
  return { host, port };
}
