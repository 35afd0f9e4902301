// What a controller run inside a test process needs from the manager: a logger whose JSON lines
// are kept for assertions (echoed when `echoEnv` is set), and manager options with leader
// election, health and metrics servers off.
import type { ManagerOptions } from '../../internal/shared/manager/index.ts';
import { createLogger, type Logger } from '../../internal/shared/observability/index.ts';

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export function capturedLogger(name: string, echoEnv: string): { readonly logger: Logger; readonly logs: LogLine[] } {
  const logs: LogLine[] = [];
  const logger = createLogger({
    level: 'debug',
    fields: { logger: name },
    write: (line) => {
      const parsed = JSON.parse(line) as LogLine;
      logs.push(parsed);
      if (process.env[echoEnv] && parsed.level !== 'debug') console.log(line);
    },
  });
  return { logger, logs };
}

export const inProcessManagerOptions = (leaderElectionId: string): ManagerOptions => ({
  leaderElect: false,
  leaderElectionNamespace: 'olmv1-system',
  leaderElectionId,
  healthProbeBindAddress: '0',
  metricsBindAddress: '0',
  logLevel: 'debug',
});
