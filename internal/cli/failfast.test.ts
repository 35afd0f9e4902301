import { describe, expect, it } from 'vitest';
import type { Condition } from '../../api/meta/v1.ts';
import type { ClusterCatalog, ClusterExtension } from '../../api/v1/index.ts';
import { CauseTracker, unfixable, unfixableCatalog } from './failfast.ts';

const ext = (progressing: Partial<Condition>, spec: Partial<NonNullable<ClusterExtension['spec']>['source']['catalog']> = {}, sa?: string): ClusterExtension =>
  ({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'demo', generation: 2 },
    spec: { namespace: 'ns', ...(sa && { serviceAccount: { name: sa } }), source: { sourceType: 'Catalog', catalog: { packageName: 'demo-operatr', ...spec } } },
    status: { conditions: [{ type: 'Progressing', status: 'True', reason: 'Retrying', message: '', lastTransitionTime: '', observedGeneration: 2, ...progressing }] },
  }) as ClusterExtension;

describe('unfixable', () => {
  it('a package the catalogs lack: search for it, or uninstall', () => {
    expect(unfixable(ext({ message: 'no bundles found for package "demo-operatr"' }), 2)).toEqual({
      cause: 'no bundles found for package "demo-operatr"',
      next: ['kubectl olm search demo-operatr', 'kubectl olm uninstall demo'],
    });
  });

  it('a version the catalogs lack: list what there is, upgrade to another', () => {
    expect(unfixable(ext({ message: 'no bundles found for package "demo-operatr" matching version "9.9.9"' }, { version: '9.9.9' }), 2)?.next).toEqual([
      'kubectl olm list-available demo-operatr',
      'kubectl olm upgrade demo --version <range>',
    ]);
  });

  it('a version the upgrade graph does not lead to from the installed one: --force is named too', () => {
    const m = 'error upgrading from currently installed version "0.3.0": no bundles found for package "demo-operatr" matching version "0.1.0"';
    expect(unfixable(ext({ message: m }, { version: '0.1.0' }), 2)?.next).toEqual([
      'kubectl olm list-available demo-operatr',
      'kubectl olm upgrade demo --version <range>',
      'kubectl olm upgrade demo --version 0.1.0 --force',
    ]);
  });

  it('a missing service account is named, with the command that creates it', () => {
    expect(unfixable(ext({ message: 'installation cannot proceed due to missing ServiceAccount' }, {}, 'installer'), 2)).toEqual({
      cause: 'installation cannot proceed due to missing ServiceAccount "installer" in namespace "ns"',
      next: ['kubectl create serviceaccount installer -n ns'],
    });
  });

  it('an object another owner holds: the command that shows it', () => {
    const m = "CustomResourceDefinition 'greetings.demo.olm.dev' already exists in namespace '' and cannot be managed by operator-controller";
    expect(unfixable(ext({ message: m }), 2)?.next).toEqual(['kubectl get customresourcedefinition greetings.demo.olm.dev -o yaml']);
  });

  it('a terminal Progressing=False is unfixable whatever its message', () => {
    expect(unfixable(ext({ status: 'False', reason: 'Blocked', message: 'image "x" not\nfound' }), 2)?.cause).toBe('image "x" not found');
    expect(unfixable(ext({ status: 'False', reason: 'InvalidConfiguration', message: 'bad config' }), 2)?.cause).toBe('bad config');
  });

  it('a retried error that may pass, a success, or a status of an older spec is not', () => {
    expect(unfixable(ext({ message: 'error walking catalogs: connection refused' }), 2)).toBeUndefined();
    expect(unfixable(ext({ reason: 'Succeeded', message: 'Desired state reached' }), 2)).toBeUndefined();
    expect(unfixable(ext({ message: 'no bundles found for package "demo-operatr"', observedGeneration: 1 }), 2)).toBeUndefined();
    expect(unfixable(undefined, 1)).toBeUndefined();
  });
});

describe('CauseTracker', () => {
  it('reports a cause only once it has stayed for two reads spanning the grace period', () => {
    let now = 0;
    const t = new CauseTracker(2_000, () => now);
    const u = { cause: 'a', next: [] };
    expect(t.observe(u)).toBeUndefined();
    now = 1_000;
    expect(t.observe(u)).toBeUndefined();
    now = 2_500;
    expect(t.observe({ cause: 'b', next: [] })).toBeUndefined(); // a new cause starts over
    now = 4_600;
    expect(t.observe({ cause: 'b', next: [] })).toEqual({ cause: 'b', next: [] });
    expect(t.observe(undefined)).toBeUndefined();
  });
});

describe('unfixableCatalog', () => {
  const cat = (status: 'True' | 'False', reason: string, message: string) =>
    ({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: 'bad', generation: 1 },
      spec: { source: { type: 'Image', image: { ref: 'r/x:1' } } },
      status: { conditions: [{ type: 'Progressing', status, reason, message, lastTransitionTime: '', observedGeneration: 1 }] },
    }) as ClusterCatalog;

  it('an image that does not exist, or a terminal error: catalogd\'s cause and what to run next', () => {
    expect(unfixableCatalog(cat('True', 'Retrying', 'source catalog content: error resolving "r/x:1": manifest unknown'), 1)).toEqual({
      cause: 'source catalog content: error resolving "r/x:1": manifest unknown',
      next: ['kubectl olm catalog delete bad', 'kubectl olm catalog add bad <image>'],
    });
    expect(unfixableCatalog(cat('False', 'Blocked', 'error parsing image reference'), 1)?.cause).toBe('error parsing image reference');
    expect(unfixableCatalog(cat('True', 'Retrying', 'connection refused'), 1)).toBeUndefined();
  });
});
