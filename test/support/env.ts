// What the global setup provides to integration tests.
import { inject } from 'vitest';
import type { ControlPlaneInfo } from './control-plane.ts';
import { TestKube } from './kube.ts';
import type { RegistryInfo } from './registry.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    controlPlane: ControlPlaneInfo;
    registry: RegistryInfo;
  }
}

export const controlPlane = (): ControlPlaneInfo => inject('controlPlane');
export const registry = (): RegistryInfo => inject('registry');
/** An admin client of the shared control plane. */
export const adminKube = (): TestKube => new TestKube(controlPlane());
