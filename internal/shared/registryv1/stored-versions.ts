// The CRD upgrade rule both OLMs refuse a bundle's CRD on: a version still stored must stay listed.

/**
 * The versions in the existing CRD's `status.storedVersions` that the new CRD no longer lists in its spec: objects
 * still stored at one of them would be lost. The one rule both OLMs refuse an upgrade on (v1's crdify check
 * `storedVersionRemoval`, classic's InstallPlan CRD step), each with its own message. A v1beta1 new CRD's
 * `spec.version` counts as listed.
 */
export function removedStoredVersions(
  oldCrd: { readonly status?: { readonly storedVersions?: readonly string[] } },
  newCrd: { spec: { version?: unknown; versions?: readonly { name: string }[] } },
): string[] {
  const names = new Set((newCrd.spec.versions ?? []).map((v) => v.name));
  if (typeof newCrd.spec.version === 'string' && newCrd.spec.version) names.add(newCrd.spec.version);
  return (oldCrd.status?.storedVersions ?? []).filter((v) => !names.has(v));
}
