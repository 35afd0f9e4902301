// Typed fakes of the pipeline's ports for the step tests: each records its calls and answers from a script; none
// talks to a cluster. Typed against the port interfaces, so a port change breaks them at compile time.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { createLogger, type Logger } from '../../shared/observability/index.ts';
import type { EventRecorder } from '../../shared/kube/index.ts';
import type {
  ApplyOutcome,
  BundleApplier,
  BundleRef,
  BundleRenderer,
  BundleResolver,
  BundleUnpacker,
  InstallPreflight,
  InstalledBundle,
  ObjectSetApplier,
  RenderRequest,
  RenderedBundle,
  Resolution,
  RevisionStates,
  UninstallOutcome,
} from './ports.ts';
import type { ExtensionState, Finalizers } from './steps.ts';

/** A scripted answer: a value, or an error to throw. */
export type Answer<T> = { readonly value: T } | { readonly error: unknown };
const answer = async <T>(a: Answer<T>): Promise<T> => {
  if ('error' in a) throw a.error;
  return a.value;
};

export class FakeApplier implements BundleApplier {
  readonly calls: string[] = [];
  readonly applied: { bundle: BundleRef; objects: readonly KubeObject[] }[] = [];
  installedAnswer: Answer<InstalledBundle | undefined> = { value: undefined };
  applyAnswer: Answer<ApplyOutcome> = { value: { installed: true } };
  maintainAnswer: Answer<ApplyOutcome> = { value: { installed: true } };
  uninstallAnswer: Answer<UninstallOutcome> = { value: { done: true } };

  installed(): Promise<InstalledBundle | undefined> {
    this.calls.push('installed');
    return answer(this.installedAnswer);
  }
  apply(_ext: ClusterExtension, bundle: BundleRef, objects: readonly KubeObject[]): Promise<ApplyOutcome> {
    this.calls.push('apply');
    this.applied.push({ bundle, objects });
    return answer(this.applyAnswer);
  }
  maintain(_ext: ClusterExtension, installed: InstalledBundle): Promise<ApplyOutcome> {
    this.calls.push(`maintain ${installed.name}`);
    return answer(this.maintainAnswer);
  }
  uninstall(): Promise<UninstallOutcome> {
    this.calls.push('uninstall');
    return answer(this.uninstallAnswer);
  }
}

export class FakeObjectSets implements ObjectSetApplier {
  readonly calls: string[] = [];
  readonly applied: { bundle: BundleRef; objects: readonly KubeObject[] }[] = [];
  statesAnswer: Answer<RevisionStates> = { value: { rollingOut: [] } };
  applyAnswer: Answer<void> = { value: undefined };
  migrateAnswer: Answer<void> = { value: undefined };
  uninstallAnswer: Answer<UninstallOutcome> = { value: { done: true } };

  migrate(): Promise<void> {
    this.calls.push('migrate');
    return answer(this.migrateAnswer);
  }
  revisionStates(): Promise<RevisionStates> {
    this.calls.push('revisionStates');
    return answer(this.statesAnswer);
  }
  /** Whether `apply` makes a new revision (and so runs the preflight it is given). */
  newRevision = true;
  async apply(_ext: ClusterExtension, bundle: BundleRef, objects: readonly KubeObject[], _signal: AbortSignal, preflight?: () => Promise<void>): Promise<void> {
    this.calls.push('apply');
    this.applied.push({ bundle, objects });
    if (this.newRevision) await preflight?.();
    return answer(this.applyAnswer);
  }
  uninstall(): Promise<UninstallOutcome> {
    this.calls.push('uninstall');
    return answer(this.uninstallAnswer);
  }
}

export class FakeResolver implements BundleResolver {
  readonly calls: { installed: BundleRef | undefined }[] = [];
  resolveAnswer: Answer<Resolution>;
  /** What catalogsExist answers; an Error is thrown (the check failed). */
  catalogs: boolean | Error = true;
  constructor(resolution: Resolution) {
    this.resolveAnswer = { value: resolution };
  }
  resolve(_ext: ClusterExtension, installed: BundleRef | undefined): Promise<Resolution> {
    this.calls.push({ installed });
    return answer(this.resolveAnswer);
  }
  catalogsExist(): boolean {
    if (this.catalogs instanceof Error) throw this.catalogs;
    return this.catalogs;
  }
}

export class FakeUnpacker implements BundleUnpacker {
  readonly images: string[] = [];
  unpackAnswer: Answer<string> = { value: '/bundles/unpacked' };
  unpack(image: string): Promise<string> {
    this.images.push(image);
    return answer(this.unpackAnswer);
  }
}

export class FakeRenderer implements BundleRenderer {
  readonly requests: { dir: string; request: RenderRequest }[] = [];
  renderAnswer: Answer<RenderedBundle> = { value: { objects: [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' } }] } };
  render(dir: string, request: RenderRequest): Promise<RenderedBundle> {
    this.requests.push({ dir, request });
    return answer(this.renderAnswer);
  }
}

export class FakePreflight implements InstallPreflight {
  readonly checked: (readonly KubeObject[])[] = [];
  checkAnswer: Answer<void> = { value: undefined };
  check(_ext: ClusterExtension, objects: readonly KubeObject[]): Promise<void> {
    this.checked.push(objects);
    return answer(this.checkAnswer);
  }
}

export interface RecordedEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export class FakeEvents implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  normal(_obj: KubeObject, reason: string, message: string): void {
    this.events.push({ type: 'Normal', reason, message });
  }
  warning(_obj: KubeObject, reason: string, message: string): void {
    this.events.push({ type: 'Warning', reason, message });
  }
}

export const quietLogger = (): Logger => createLogger({ level: 'error', write: () => undefined });

/** A ClusterExtension as the API server would hold it, with the cleanup finalizer unless told otherwise. */
export function extension(overrides: { finalizers?: string[]; deleting?: boolean; version?: string; config?: unknown } = {}): ClusterExtension {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: {
      name: 'demo',
      generation: 3,
      finalizers: overrides.finalizers ?? ['olm.operatorframework.io/cleanup-contentmanager-cache'],
      ...(overrides.deleting && { deletionTimestamp: '2026-11-24T00:00:00Z' }),
    },
    spec: {
      namespace: 'demo-ns',
      serviceAccount: { name: 'installer' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'demo', ...(overrides.version !== undefined && { version: overrides.version }) } },
      ...(overrides.config !== undefined && { config: { configType: 'Inline', inline: overrides.config } }),
    },
  } as ClusterExtension;
}

export const bundle = (version: string): BundleRef => ({ package: 'demo', name: `demo.v${version}`, version, image: `registry.example/demo-bundle:v${version}` });
export const installedBundle = (version: string): InstalledBundle => ({ ...bundle(version), revision: `demo-${version}` });

/** A fresh pass's state; `statusWrites` counts the steps' own status writes. */
export function stateFor(ext: ClusterExtension): ExtensionState & { statusWrites: number } {
  const state = {
    ext,
    log: quietLogger(),
    statusWrites: 0,
    writeStatus: async (): Promise<void> => {
      state.statusWrites++;
    },
  };
  return state;
}

export class FakeFinalizers implements Finalizers {
  readonly calls: string[] = [];
  addAnswer: Answer<void> = { value: undefined };
  removeAnswer: Answer<void> = { value: undefined };
  add(): Promise<void> {
    this.calls.push('add');
    return answer(this.addAnswer);
  }
  remove(): Promise<void> {
    this.calls.push('remove');
    return answer(this.removeAnswer);
  }
}
