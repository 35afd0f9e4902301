import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { collisionReport, inTransition, objectRefString, objectTitle, revisionComplete, validateRevision, type ObjectResult, type RevisionResult } from './engine.ts';

const cm = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...extra } });
const result = (action: ObjectResult['action'], status: 'True' | 'False' = 'True'): ObjectResult => ({ action, object: cm('x'), probe: { status, messages: [] } });

describe('revision engine rules', () => {
  it('names objects as boxcutter does', () => {
    expect(objectRefString(cm('a'))).toBe('/v1, Kind=ConfigMap ns/a');
    expect(objectRefString({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } })).toBe('apps/v1, Kind=Deployment /d');
    expect(objectTitle(cm('a'))).toBe('ConfigMap.v1 ns/a');
    expect(objectTitle({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'n' } })).toBe('Deployment.apps/v1 n/d');
  });

  it('refuses what boxcutter’s revision validator refuses, phase by phase', () => {
    expect(validateRevision('r', 1, [{ name: 'ok', objects: [{ object: cm('a'), collisionProtection: 'Prevent' }] }])).toBeUndefined();
    expect(
      validateRevision('r', 2, [
        { name: 'one', objects: [{ object: cm('a', { uid: 'u', finalizers: ['f'] }), collisionProtection: 'Prevent' }] },
        { name: 'Two', objects: [{ object: cm('a', { uid: 'u', finalizers: ['f'] }), collisionProtection: 'Prevent' }] },
        { name: 'three', objects: [{ object: { metadata: { name: 'k' } }, collisionProtection: 'Prevent' }] },
      ]),
    ).toBe(
      'revision "r" (2): ' +
        'phase "one": /v1, Kind=ConfigMap ns/a: metadata.uid: Forbidden: must be empty, metadata.finalizers: Forbidden: must be empty, /v1, Kind=ConfigMap ns/a: duplicate object found in phases: Two, one, ' +
        `phase "Two": phase name invalid: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), /v1, Kind=ConfigMap ns/a: metadata.uid: Forbidden: must be empty, metadata.finalizers: Forbidden: must be empty, /v1, Kind=ConfigMap ns/a: duplicate object found in phases: Two, one, ` +
        'phase "three": /, Kind= /k: apiVersion: Required value: must not be empty, kind: Required value: must not be empty',
    );
  });

  it('tells complete from in transition', () => {
    const r = (phases: RevisionResult['phases'], names = phases.map((p) => p.name)): RevisionResult => ({ phaseNames: names, phases });
    expect(revisionComplete(r([{ name: 'a', objects: [result('Updated')] }]))).toBe(true);
    expect(inTransition(r([{ name: 'a', objects: [result('Updated')] }]))).toBe(false);
    // a later phase not reached yet
    expect(revisionComplete(r([{ name: 'a', objects: [result('Updated', 'False')] }], ['a', 'b']))).toBe(false);
    expect(inTransition(r([{ name: 'a', objects: [result('Updated', 'False')] }], ['a', 'b']))).toBe(true);
    // handed over to a newer revision: complete for this phase only when all objects moved on
    expect(inTransition(r([{ name: 'a', objects: [result('Progressed'), result('Updated')] }]))).toBe(true);
    expect(inTransition(r([{ name: 'a', objects: [result('Progressed')] }]))).toBe(false);
    expect(inTransition(r([{ name: 'a', objects: [result('Collision')] }]))).toBe(true);
    expect(revisionComplete(r([{ name: 'a', objects: [result('Collision')] }]))).toBe(false);
  });

  it('reports a collision with the conflicting owner', () => {
    const text = collisionReport({
      action: 'Collision',
      object: cm('a'),
      probe: { status: 'True', messages: [] },
      conflictingOwner: { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name: 'other-1', uid: 'u1', controller: true, blockOwnerDeletion: true },
    });
    expect(text).toBe(
      'Object ConfigMap.v1 ns/a\nAction: "Collision"\nConflicting Owner: &OwnerReference{Kind:ClusterObjectSet,Name:other-1,UID:u1,APIVersion:olm.operatorframework.io/v1,Controller:*true,BlockOwnerDeletion:*true,}\n',
    );
  });
});
