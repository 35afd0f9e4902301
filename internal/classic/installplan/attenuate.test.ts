import { describe, expect, it } from 'vitest';
import type { OperatorGroup } from '../../../api/operators/index.ts';
import { OperatorGroupError, serviceAccountFor } from './attenuate.ts';

const og = (name: string, o: { namespaces?: string[]; sa?: string; synced?: boolean } = {}): OperatorGroup => ({
  metadata: { name, namespace: 'ns' },
  spec: { ...(o.sa && { serviceAccountName: o.sa }) },
  status: { lastUpdated: '2026-01-01T00:00:00Z', ...(o.namespaces && { namespaces: o.namespaces }), ...(o.synced && o.sa && { serviceAccountRef: { kind: 'ServiceAccount', namespace: 'ns', name: o.sa } }) },
});

describe('serviceAccountFor (queryServiceAccountFromNamespace)', () => {
  it('no OperatorGroup, or none managing a namespace yet', () => {
    expect(() => serviceAccountFor([])).toThrow(new OperatorGroupError('no operator group found that is managing this namespace'));
    expect(() => serviceAccountFor([og('a')])).toThrow('no operator group found that is managing this namespace');
  });
  it('two managing OperatorGroups', () => {
    expect(() => serviceAccountFor([og('a', { namespaces: ['ns'] }), og('b', { namespaces: [''] }), og('c')])).toThrow('more than one operator group(s) are managing this namespace count=2');
  });
  it('no service account named: the controller’s own identity', () => {
    expect(serviceAccountFor([og('a', { namespaces: ['ns'] })])).toBeUndefined();
  });
  it('a named account not synced to status yet', () => {
    expect(() => serviceAccountFor([og('a', { namespaces: ['ns'], sa: 'installer' })])).toThrow('please make sure the service account exists. sa=installer operatorgroup=ns/a');
  });
  it('the synced reference', () => {
    expect(serviceAccountFor([og('a', { namespaces: [''], sa: 'installer', synced: true })])).toEqual({ kind: 'ServiceAccount', namespace: 'ns', name: 'installer' });
  });
});
