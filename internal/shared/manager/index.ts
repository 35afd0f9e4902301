export type { Cache, ManagerContext, ManagerParts } from './manager.ts';
export { clockOf, mergeParts, partRunnables, runManager } from './manager.ts';
export type { Flag, ManagerOptions } from './options.ts';
export { UsageError, managerFlags, parseBindAddress, parseManagerArgs } from './options.ts';
export { main } from './main.ts';
export type { RegistryFlagOptions } from './registry.ts';
export { globalPullSecret, registryAccess, registryFlags, registryOptions } from './registry.ts';
export { parseFeatureGates } from './featuregates.ts';
