import { describe, expect, it } from 'vitest';
import { removedStoredVersions } from './index.ts';

describe('removedStoredVersions', () => {
  const stored = (...storedVersions: string[]) => ({ status: { storedVersions } });

  it('names the stored versions the new CRD no longer lists, in stored order', () => {
    expect(removedStoredVersions(stored('v1alpha1', 'v1beta1', 'v1'), { spec: { versions: [{ name: 'v1' }] } })).toEqual(['v1alpha1', 'v1beta1']);
  });

  it('counts a v1beta1 CRD’s spec.version as listed', () => {
    expect(removedStoredVersions(stored('v1alpha1', 'v1'), { spec: { version: 'v1alpha1', versions: [{ name: 'v1' }] } })).toEqual([]);
  });

  it('finds nothing when the existing CRD has no stored versions', () => {
    expect(removedStoredVersions({}, { spec: { versions: [] } })).toEqual([]);
    expect(removedStoredVersions({ status: {} }, { spec: {} })).toEqual([]);
  });
});
