export type { Cache, ManagerContext, ManagerParts, Setup } from './manager.ts';
export { runManager } from './manager.ts';
export type { Flag, ManagerOptions } from './options.ts';
export { UsageError, parseBindAddress, parseManagerArgs } from './options.ts';
export { main } from './main.ts';
