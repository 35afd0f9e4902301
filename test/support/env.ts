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

let own: ControlPlaneInfo | undefined;
/** Points controlPlane() (and everything built on it) at a file's own control plane; undefined goes back to the shared one. */
export function useControlPlane(info: ControlPlaneInfo | undefined): void {
  own = info;
}
export const controlPlane = (): ControlPlaneInfo => own ?? inject('controlPlane');
export const registry = (): RegistryInfo => inject('registry');
/** An admin client of the shared control plane. */
export const adminKube = (): TestKube => new TestKube(controlPlane());
