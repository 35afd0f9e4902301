// The kubectl-olm commands: the list, the dispatcher, and an in-process runner.
export { commands } from './commands.ts';
export { dispatch } from './dispatch.ts';
export { runCaptured, type CapturedRun } from './run.ts';
export type { CliCommand, CliIO } from './types.ts';
export { CliUsageError } from './types.ts';
