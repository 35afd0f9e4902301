import { describe, expect, it } from 'vitest';
import type { LabelSelector } from '../../../api/meta/v1.ts';
import type { OperatorGroup } from '../../../api/operators/index.ts';
import {
  aggregationLabel,
  apiHash,
  apiSetString,
  base62Sha224,
  buildTargetNamespaces,
  groupSurface,
  isAllNamespaces,
  namespaceSetContains,
  namespaceSetFromString,
  namespaceSetIntersection,
  operatorGroupClusterRoleName,
  parseAPISet,
  providedAPIsOfCSV,
  reconcileAPIIntersection,
  upgradeStrategy,
  type GroupSurface,
} from './groups.ts';
import { targetNamespaces } from './reconciler.ts';

const og = (name: string, namespace: string, namespaces?: string[], annotations?: Record<string, string>, spec: OperatorGroup['spec'] = {}): OperatorGroup => ({
  apiVersion: 'operators.coreos.com/v1',
  kind: 'OperatorGroup',
  metadata: { name, namespace, ...(annotations && { annotations }) },
  spec,
  ...(namespaces && { status: { namespaces, lastUpdated: '2026-01-01T00:00:00Z' } }),
});

describe('namespace sets', () => {
  it('treats [""] as every namespace', () => {
    const all = namespaceSetFromString('');
    expect(isAllNamespaces(all)).toBe(true);
    expect(namespaceSetContains(all, 'anything')).toBe(true);
    expect(namespaceSetContains(namespaceSetFromString('a,b'), 'c')).toBe(false);
    expect([...namespaceSetIntersection(all, new Set(['x']))]).toEqual(['x']);
    expect([...namespaceSetIntersection(new Set(['a', 'b']), new Set(['b', 'c']))]).toEqual(['b']);
  });

  it('olm.targetNamespaces is status.namespaces sorted and comma-joined', () => {
    expect(buildTargetNamespaces(og('g', 'ns', ['b', 'a']))).toBe('a,b');
    expect(buildTargetNamespaces(og('g', 'ns', ['']))).toBe('');
    expect(buildTargetNamespaces(og('g', 'ns'))).toBe('');
  });

  it('the upgrade strategy is Default unless fail-forward', () => {
    expect(upgradeStrategy(og('g', 'ns', [], undefined, { upgradeStrategy: 'TechPreviewUnsafeFailForward' }))).toBe('TechPreviewUnsafeFailForward');
    expect(upgradeStrategy(og('g', 'ns'))).toBe('Default');
  });

  it('targets: spec.targetNamespaces, else the selector, else every namespace; NamespaceAll refused', () => {
    const nss = [
      { metadata: { name: 'a', labels: { team: 'x' } } },
      { metadata: { name: 'b', labels: { team: 'y' } } },
    ];
    expect(targetNamespaces(og('g', 'ns', undefined, undefined, { targetNamespaces: ['b', 'a', 'b'] }), nss)).toEqual(['a', 'b']);
    expect(targetNamespaces(og('g', 'ns', undefined, undefined, { selector: { matchLabels: { team: 'y' } } }), nss)).toEqual(['b']);
    expect(targetNamespaces(og('g', 'ns', undefined, undefined, { selector: {} }), nss)).toEqual(['']);
    expect(targetNamespaces(og('g', 'ns'), nss)).toEqual(['']);
    expect(() => targetNamespaces(og('g', 'ns', undefined, undefined, { targetNamespaces: ['a', ''] }), nss)).toThrow('TargetNamespaces cannot contain NamespaceAll: [a ]');
    // upstream parses the selector first: an unparsable one fails the group even when it lists its targets
    // an operator the type does not allow, as a user can write it (the CRD schema takes any string)
    const bad = { matchExpressions: [{ key: 'a', operator: 'Bogus', values: ['x'] }] } as unknown as LabelSelector;
    expect(() => targetNamespaces(og('g', 'ns', undefined, undefined, { targetNamespaces: ['a'], selector: bad }), nss)).toThrow('"Bogus" is not a valid label selector operator');
    expect(() => targetNamespaces(og('g', 'ns', undefined, undefined, { selector: bad }), nss)).toThrow('"Bogus" is not a valid label selector operator');
  });
});

describe('provided APIs', () => {
  it('reads and writes olm.providedAPIs as upstream (Kind.version.group, sorted; malformed entries dropped)', () => {
    const set = parseAPISet('Foo.v1.example.com, Bar.v2.example.com,Bad.v1,');
    expect([...set].sort()).toEqual(['Bar.v2.example.com', 'Foo.v1.example.com']);
    expect(apiSetString(set)).toBe('Bar.v2.example.com,Foo.v1.example.com');
  });

  it('a CSV provides its owned CRDs and APIServices; a CRD name without a dot is an error', () => {
    const csv = {
      metadata: { name: 'x' },
      spec: {
        displayName: 'x',
        install: { strategy: 'deployment' },
        customresourcedefinitions: { owned: [{ name: 'widgets.example.com', version: 'v1', kind: 'Widget' }] },
        apiservicedefinitions: { owned: [{ name: 'things', group: 'things.example.com', version: 'v1beta1', kind: 'Thing' }] },
      },
    };
    expect([...providedAPIsOfCSV(csv)]).toEqual(['Widget.v1.example.com', 'Thing.v1beta1.things.example.com']);
    expect(() => providedAPIsOfCSV({ ...csv, spec: { ...csv.spec, customresourcedefinitions: { owned: [{ name: 'widgets', version: 'v1', kind: 'W' }] } } })).toThrow('error parsing crd name: widgets');
  });

  it('hashes as upstream: FNV-1a 64 of Kind.version.group; base-62 sha224 for ClusterRole names', () => {
    expect(apiHash('c1.v1.g1')).toBe('30189bbead057e8a');
    expect(aggregationLabel('c1.v1.g1', 'admin')).toBe('olm.opgroup.permissions/aggregate-to-30189bbead057e8a-admin');
    expect(base62Sha224('ns/og/admin')).toBe('7hdvs1pJiMS8ikuUkvThunsWUnvSLPNYPbr0ec');
    expect(operatorGroupClusterRoleName(og('og', 'ns'), 'admin')).toBe('olm.og.og.admin-7hdvs1pJiMS8ikuUkvThunsWUnvSLPNYPbr0ec');
    const long = operatorGroupClusterRoleName(og('x'.repeat(300), 'ns'), 'view');
    expect(long.length).toBeLessThanOrEqual(253);
  });

  // upstream's ReconcileAPIIntersection cases (olm/groups_test.go TestReconcileAPIIntersection, in spirit).
  const surface = (id: string, targets: string[], apis: string[]): GroupSurface => ({ identifier: id, targets: new Set(targets), providedAPIs: new Set(apis) });
  it.each([
    { name: 'no other groups, new API', add: ['A.v1.g'], group: surface('g/a', ['a'], []), others: [], want: 'AddAPIs' },
    { name: 'already provided', add: ['A.v1.g'], group: surface('g/a', ['a'], ['A.v1.g']), others: [], want: 'NoAPIConflict' },
    { name: 'intersecting group provides it, we do not yet', add: ['A.v1.g'], group: surface('g/a', ['a'], []), others: [surface('h/b', ['a'], ['A.v1.g'])], want: 'APIConflict' },
    { name: 'intersecting group provides it, and so do we', add: ['A.v1.g'], group: surface('g/a', ['a'], ['A.v1.g']), others: [surface('h/b', ['a'], ['A.v1.g'])], want: 'RemoveAPIs' },
    { name: 'a group of every namespace intersects all', add: ['A.v1.g'], group: surface('g/a', ['a'], []), others: [surface('h/b', [''], ['A.v1.g'])], want: 'APIConflict' },
    { name: 'disjoint targets do not conflict', add: ['A.v1.g'], group: surface('g/a', ['a'], []), others: [surface('h/b', ['b'], ['A.v1.g'])], want: 'AddAPIs' },
  ])('$name', ({ add, group, others, want }) => {
    expect(reconcileAPIIntersection(new Set(add), group, others)).toBe(want);
  });

  it('a group surface counts its own namespace as a target unless it targets all', () => {
    expect([...groupSurface(og('g', 'ns', ['t'])).targets].sort()).toEqual(['ns', 't']);
    expect([...groupSurface(og('g', 'ns', [''])).targets]).toEqual(['']);
    expect(groupSurface(og('g', 'ns', ['t'], { 'olm.providedAPIs': 'A.v1.g' })).providedAPIs.has('A.v1.g')).toBe(true);
  });
});
