// upstream's TestValidateV1CRDCompatibility and TestValidateV1Beta1CRDCompatibility (catalog/operator_test.go),
// over upstream's own testdata: the CRs a CRD update must keep valid, and the message when one does not.
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { crdManifestVersion, CrValidationError, validateExistingCrs, type Crd } from './crd.ts';

const load = <T>(file: string): T => yaml.load(readFileSync(new URL(`./testdata/${file}`, import.meta.url), 'utf8')) as T;
const lister =
  (crs: readonly KubeObject[]) =>
  async (group: string, version: string, kind: string): Promise<KubeObject[]> =>
    crs.filter((cr) => cr.apiVersion === `${group}/${version}` && cr.kind === kind);

async function outcome(crs: string[], oldCrd: string, newCrd: string): Promise<string | undefined> {
  try {
    await validateExistingCrs(lister(crs.map((f) => load<KubeObject>(f))), load<Crd>(oldCrd), load<Crd>(newCrd));
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(CrValidationError);
    return (err as Error).message;
  }
}

describe('validateExistingCrs (apiextensions v1)', () => {
  const v1 = (f: string): string => `apiextensionsv1/${f}`;
  it('valid', async () => {
    expect(await outcome([v1('crontabs.cr.valid.v1.yaml'), v1('crontabs.cr.valid.v2.yaml')], v1('crontabs.crd.old.yaml'), v1('crontabs.crd.yaml'))).toBeUndefined();
  });
  it('validation failure', async () => {
    expect(await outcome([v1('crontabs.cr.valid.v1.yaml'), v1('crontabs.cr.fail.v2.yaml')], v1('crontabs.crd.old.yaml'), v1('crontabs.crd.yaml'))).toBe(
      'error validating stable.example.com/v2, Kind=CronTab "my-crontab": updated validation is too restrictive: [].spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 9',
    );
  });
  it('cr not invalidated by unserved version', async () => {
    expect(await outcome([v1('crontabs.cr.valid.v1.yaml'), v1('crontabs.cr.valid.v2.yaml')], v1('crontabs.crd.old.yaml'), v1('crontabs.crd.unserved.yaml'))).toBeUndefined();
  });
  it('cr not validated against currently unserved version', async () => {
    expect(await outcome([v1('crontabs.cr.valid.v1.yaml'), v1('crontabs.cr.valid.v2.yaml')], v1('crontabs.crd.old.unserved.yaml'), v1('crontabs.crd.yaml'))).toBeUndefined();
  });
  it('validation failure with single CRD version', async () => {
    expect(await outcome([v1('single-version-cr.yaml')], v1('single-version-crd.old.yaml'), v1('single-version-crd.yaml'))).toBe(
      'error validating cluster.com/v1alpha1, Kind=testcrd "my-cr-1": updated validation is too restrictive: [].spec.scalar: Invalid value: 100: spec.scalar in body should be less than or equal to 50',
    );
  });
});

describe('validateExistingCrs (apiextensions v1beta1 shapes)', () => {
  const b = (f: string): string => `apiextensionsv1beta1/${f}`;
  it('label validation', async () => {
    expect(await outcome(['hivebug/cr.yaml'], 'hivebug/crd.yaml', 'hivebug/crd.yaml')).toBeUndefined();
  });
  it('fail validation: a null object and two missing required fields, in one aggregate', async () => {
    expect(await outcome(['hivebug/fail.yaml'], 'hivebug/crd.yaml', 'hivebug/crd.yaml')).toBe(
      'error validating hive.openshift.io/v1, Kind=MachinePool "test": updated validation is too restrictive: [[].spec.clusterDeploymentRef: Invalid value: "null": spec.clusterDeploymentRef in body must be of type object: "null", [].spec.name: Required value, [].spec.platform: Required value]',
    );
  });
  it('backwards incompatible change', async () => {
    expect(await outcome([b('cr.yaml')], b('crd.old.yaml'), b('crd.yaml'))).toBe(
      'error validating cluster.com/v1alpha1, Kind=testcrd "my-cr-1": updated validation is too restrictive: [].spec.scalar: Invalid value: 2: spec.scalar in body should be greater than or equal to 3',
    );
  });
  it('unserved version', async () => {
    expect(await outcome([b('cr.yaml'), b('cr.v2.yaml')], b('crd.old.yaml'), b('crd.unserved.yaml'))).toBeUndefined();
  });
  it('cr not validated against currently unserved version', async () => {
    expect(await outcome([b('cr.yaml'), b('cr.v2.yaml')], b('crd.unserved.yaml'), b('crd.yaml'))).toBeUndefined();
  });
  it('crd with no versions list', async () => {
    expect(await outcome([b('cr.yaml'), b('cr.v2.yaml')], b('crd.no-versions-list.old.yaml'), b('crd.no-versions-list.yaml'))).toBe(
      'error validating cluster.com/v1alpha1, Kind=testcrd "my-cr-1": updated validation is too restrictive: [].spec.scalar: Invalid value: 2: spec.scalar in body should be greater than or equal to 3',
    );
  });
  it('crd with incorrect comparison (a large real schema: tolerations, int-or-string, …)', async () => {
    expect(await outcome(['postgrestolerations/pgadmin.cr.yaml'], 'postgrestolerations/crd.yaml', 'postgrestolerations/crd.yaml')).toBeUndefined();
  });
});

describe('crdManifestVersion', () => {
  it('v1 and v1beta1, from the manifest’s apiVersion', () => {
    expect(crdManifestVersion('{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}')).toBe('v1');
    expect(crdManifestVersion('apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n')).toBe('v1beta1');
  });
  it('anything else: upstream’s message', () => {
    expect(() => crdManifestVersion('{"apiVersion":"apiextensions.k8s.io/v2"}')).toThrow('CRD APIVersion from manifest not supported: v2');
  });
});
