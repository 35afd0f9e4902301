// What the global setup provides to integration tests.
import { afterAll, inject } from 'vitest';
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
let ownRegistry: RegistryInfo | undefined;
/** Points registry() at a file's own registry (one its real nodes reach); undefined goes back to the shared one. */
export function useRegistry(info: RegistryInfo | undefined): void {
  ownRegistry = info;
}
export const registry = (): RegistryInfo => ownRegistry ?? inject('registry');
/** An admin client of the shared control plane. */
export const adminKube = (): TestKube => new TestKube(controlPlane());

/** The namespaces one test file makes; each is deleted after the file's tests (afterAll, registered by this call). */
export interface TestNamespaces {
  /** Creates `<prefix>-<random>` and tracks it. */
  create(prefix: string): Promise<string>;
  /** Tracks namespaces made some other way. */
  track(...names: string[]): void;
  /** The namespaces tracked so far (deleted after the file's tests). */
  list(): string[];
}

export function testNamespaces(): TestNamespaces {
  const names: string[] = [];
  afterAll(async () => {
    const kube = adminKube();
    for (const ns of names.splice(0)) await kube.request('DELETE', `/api/v1/namespaces/${ns}`);
  });
  return {
    async create(prefix) {
      const ns = await adminKube().namespace(prefix);
      names.push(ns);
      return ns;
    },
    track: (...more) => void names.push(...more),
    list: () => [...names],
  };
}
