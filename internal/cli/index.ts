// The kubectl-olm commands: the list, the dispatcher, and an in-process runner.
export { commands } from './commands.ts';
export { dispatch, findCommand, helpText } from './dispatch.ts';
export { runCaptured, type CapturedRun, type CaptureOptions } from './run.ts';
export type { CliCommand, CliCommandEntry, CliIO, LazyCliCommand } from './types.ts';
export { CliUsageError, lazy, loadCommand } from './types.ts';
