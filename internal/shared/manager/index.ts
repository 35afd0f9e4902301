export type { Cache, ManagerContext, ManagerParts, Setup } from './manager.ts';
export { mergeParts, partRunnables, runManager } from './manager.ts';
export type { Flag, ManagerOptions } from './options.ts';
export { UsageError, managerFlags, parseBindAddress, parseManagerArgs } from './options.ts';
export { main } from './main.ts';
export type { GlobalPullSecret, RegistriesConfDefaults, RegistryAccessOptions, RegistryFlagOptions, RegistryFlagValues } from './registry.ts';
export { globalPullSecret, parseSecretRef, registriesConfFile, registryAccess, registryFlags, registryOptions } from './registry.ts';
export type { FeatureGateDefaults } from './featuregates.ts';
export { parseFeatureGates } from './featuregates.ts';
