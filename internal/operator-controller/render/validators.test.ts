import { describe, expect, it } from 'vitest';
import { bundle, crd, csvWith, installModes } from './testing.ts';
import type { CSVSpec, WebhookDescription } from '../../shared/registryv1/index.ts';
import {
  BUNDLE_CHECKS,
  checkConversionWebhookCRDReferenceUniqueness,
  checkConversionWebhookSupport,
  checkConversionWebhooksReferenceOwnedCRDs,
  checkCRDResourceUniqueness,
  checkDeploymentNameIsDNS1123SubDomain,
  checkDeploymentSpecUniqueness,
  checkObjectSupport,
  checkOwnedCRDExistence,
  checkPackageNameNotEmpty,
  checkWebhookDeploymentReferentialIntegrity,
  checkWebhookNameIsDNS1123SubDomain,
  checkWebhookNameUniqueness,
  checkWebhookRules,
  validateBundle,
} from './validators.ts';

const deployments = (...names: string[]): CSVSpec => ({ install: { strategy: 'deployment', spec: { deployments: names.map((name) => ({ name, spec: {} })) } } });
const webhooks = (spec: CSVSpec, ...hooks: WebhookDescription[]): CSVSpec => ({ ...spec, webhookdefinitions: hooks });
const DNS_FORMAT =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('bundle checks (upstream messages and order)', () => {
  it('runs the 13 checks in upstream order', () => {
    expect(BUNDLE_CHECKS).toEqual([
      checkDeploymentSpecUniqueness,
      checkDeploymentNameIsDNS1123SubDomain,
      checkCRDResourceUniqueness,
      checkOwnedCRDExistence,
      checkPackageNameNotEmpty,
      checkConversionWebhookSupport,
      checkWebhookDeploymentReferentialIntegrity,
      checkWebhookNameUniqueness,
      checkWebhookNameIsDNS1123SubDomain,
      checkConversionWebhookCRDReferenceUniqueness,
      checkConversionWebhooksReferenceOwnedCRDs,
      checkWebhookRules,
      checkObjectSupport,
    ]);
  });

  it.each([
    {
      name: 'duplicate deployments, sorted',
      check: checkDeploymentSpecUniqueness,
      rv1: bundle(csvWith(deployments('b', 'a', 'b', 'a', 'c'))),
      want: [
        "cluster service version contains duplicate strategy deployment spec 'a'",
        "cluster service version contains duplicate strategy deployment spec 'b'",
      ],
    },
    {
      name: 'deployment name not a DNS-1123 subdomain',
      check: checkDeploymentNameIsDNS1123SubDomain,
      rv1: bundle(csvWith(deployments('Bad_Name', 'good', 'x'.repeat(254)))),
      want: [
        `invalid cluster service version strategy deployment name 'Bad_Name': ${DNS_FORMAT}`,
        `invalid cluster service version strategy deployment name '${'x'.repeat(254)}': must be no more than 253 characters`,
      ],
    },
    {
      name: 'duplicate CRDs',
      check: checkCRDResourceUniqueness,
      rv1: bundle(csvWith(), { crds: [crd('b.x.io'), crd('a.x.io'), crd('b.x.io')] }),
      want: ["bundle contains duplicate custom resource definition 'b.x.io'"],
    },
    {
      name: 'owned CRD missing',
      check: checkOwnedCRDExistence,
      rv1: bundle(csvWith({ customresourcedefinitions: { owned: [{ name: 'z.x.io' }, { name: 'a.x.io' }, { name: 'here.x.io' }] } }), {
        crds: [crd('here.x.io')],
      }),
      want: [
        "cluster service definition references owned custom resource definition 'a.x.io' not found in bundle",
        "cluster service definition references owned custom resource definition 'z.x.io' not found in bundle",
      ],
    },
    { name: 'empty package name', check: checkPackageNameNotEmpty, rv1: bundle(csvWith(), { packageName: '' }), want: ['package name is empty'] },
    {
      name: 'conversion webhook without AllNamespaces-only',
      check: checkConversionWebhookSupport,
      rv1: bundle(
        csvWith(
          webhooks(
            { installModes: installModes('AllNamespaces', 'OwnNamespace') },
            { type: 'ConversionWebhook', generateName: 'conv-b' },
            { type: 'ValidatingAdmissionWebhook', generateName: 'val' },
            { type: 'ConversionWebhook', generateName: 'conv-a' },
          ),
        ),
      ),
      want: [
        'bundle contains conversion webhook "conv-b" and supports install modes [AllNamespaces OwnNamespace] - conversion webhooks are only supported for bundles that only support AllNamespaces install mode',
        'bundle contains conversion webhook "conv-a" and supports install modes [AllNamespaces OwnNamespace] - conversion webhooks are only supported for bundles that only support AllNamespaces install mode',
      ],
    },
    {
      name: 'webhook references a missing deployment',
      check: checkWebhookDeploymentReferentialIntegrity,
      rv1: bundle(
        csvWith(
          webhooks(
            deployments('here'),
            { type: 'ValidatingAdmissionWebhook', generateName: 'v', deploymentName: 'zz' },
            { type: 'MutatingAdmissionWebhook', generateName: 'm', deploymentName: 'aa' },
            { type: 'ConversionWebhook', generateName: 'c', deploymentName: 'zz' },
            { type: 'ValidatingAdmissionWebhook', generateName: 'ok', deploymentName: 'here' },
          ),
        ),
      ),
      want: [
        "webhook of type 'MutatingAdmissionWebhook' with name 'm' references non-existent deployment 'aa'",
        "webhook of type 'ConversionWebhook' with name 'c' references non-existent deployment 'zz'",
        "webhook of type 'ValidatingAdmissionWebhook' with name 'v' references non-existent deployment 'zz'",
      ],
    },
    {
      name: 'duplicate webhook per type',
      check: checkWebhookNameUniqueness,
      rv1: bundle(
        csvWith(
          webhooks(
            {},
            { type: 'ValidatingAdmissionWebhook', generateName: 'w' },
            { type: 'MutatingAdmissionWebhook', generateName: 'w' },
            { type: 'ValidatingAdmissionWebhook', generateName: 'w' },
            { type: 'MutatingAdmissionWebhook', generateName: 'w' },
          ),
        ),
      ),
      want: ["duplicate webhook 'w' of type 'MutatingAdmissionWebhook'", "duplicate webhook 'w' of type 'ValidatingAdmissionWebhook'"],
    },
    {
      name: 'webhook generateName not a DNS-1123 subdomain',
      check: checkWebhookNameIsDNS1123SubDomain,
      rv1: bundle(csvWith(webhooks({}, { type: 'ValidatingAdmissionWebhook', generateName: 'Bad' }, { type: 'ValidatingAdmissionWebhook', generateName: 'good' }))),
      want: [`webhook of type 'ValidatingAdmissionWebhook' has invalid name 'Bad': ${DNS_FORMAT}`],
    },
    {
      name: 'CRD referenced by more than one conversion webhook',
      check: checkConversionWebhookCRDReferenceUniqueness,
      rv1: bundle(
        csvWith(
          webhooks(
            {},
            { type: 'ConversionWebhook', generateName: 'b', conversionCRDs: ['x.io', 'y.io'] },
            { type: 'ConversionWebhook', generateName: 'a', conversionCRDs: ['x.io'] },
          ),
        ),
      ),
      want: ["conversion webhooks [a,b] reference same custom resource definition 'x.io'"],
    },
    {
      name: 'conversion webhook references a CRD the bundle does not own',
      check: checkConversionWebhooksReferenceOwnedCRDs,
      rv1: bundle(
        csvWith(
          webhooks(
            { customresourcedefinitions: { owned: [{ name: 'owned.io' }] } },
            { type: 'ConversionWebhook', generateName: 'b', conversionCRDs: ['z.io', 'owned.io', 'a.io'] },
          ),
        ),
      ),
      want: [
        "conversion webhook 'b' references custom resource definition 'a.io' not owned bundle",
        "conversion webhook 'b' references custom resource definition 'z.io' not owned bundle",
      ],
    },
    {
      name: 'forbidden webhook rules',
      check: checkWebhookRules,
      rv1: bundle(
        csvWith(
          webhooks(
            {},
            { type: 'ValidatingAdmissionWebhook', generateName: 'v', rules: [{ apiGroups: ['*', 'olm.operatorframework.io'] }] },
            {
              type: 'MutatingAdmissionWebhook',
              generateName: 'm',
              rules: [{ apiGroups: ['admissionregistration.k8s.io'], resources: ['ValidatingWebhookConfigurations', 'pods', '*'] }],
            },
            { type: 'ConversionWebhook', generateName: 'c', rules: [{ apiGroups: ['*'] }] },
          ),
        ),
      ),
      want: [
        'webhook "v" contains forbidden rule: admission webhook rules cannot reference API group "*"',
        'webhook "v" contains forbidden rule: admission webhook rules cannot reference API group "olm.operatorframework.io"',
        'webhook "m" contains forbidden rule: admission webhook rules cannot reference resource "ValidatingWebhookConfigurations" for API group "admissionregistration.k8s.io"',
        'webhook "m" contains forbidden rule: admission webhook rules cannot reference resource "*" for API group "admissionregistration.k8s.io"',
      ],
    },
    {
      name: 'unsupported kinds',
      check: checkObjectSupport,
      rv1: bundle(csvWith(), {
        others: [
          { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } },
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok' } },
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } },
          // operator-registry v1.73.0 added these (upstream v1.11 installs them).
          { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np' } },
          { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', metadata: { name: 'pm' } },
          { apiVersion: 'console.openshift.io/v1', kind: 'ConsolePlugin', metadata: { name: 'cp' } },
          { apiVersion: 'console.openshift.io/v1', kind: 'ConsoleQuickStart', metadata: { name: 'qs' } },
          { apiVersion: 'console.openshift.io/v1', kind: 'ConsoleCLIDownload', metadata: { name: 'cd' } },
          { apiVersion: 'console.openshift.io/v1', kind: 'ConsoleLink', metadata: { name: 'cl' } },
        ],
      }),
      want: ['unsupported resource "d" with kind "Deployment"', 'unsupported resource "ns" with kind "Namespace"'],
    },
  ])('$name', ({ check, rv1, want }) => {
    expect(check(rv1)).toEqual(want);
  });

  it('keeps every message of every check, in check order', () => {
    const rv1 = bundle(csvWith({ ...deployments('a', 'a'), customresourcedefinitions: { owned: [{ name: 'gone.io' }] } }), {
      packageName: '',
      others: [{ kind: 'Pod', metadata: { name: 'p' } }],
    });
    expect(validateBundle(rv1)).toEqual([
      "cluster service version contains duplicate strategy deployment spec 'a'",
      "cluster service definition references owned custom resource definition 'gone.io' not found in bundle",
      'package name is empty',
      'unsupported resource "p" with kind "Pod"',
    ]);
  });

  it('accepts a valid bundle', () => {
    expect(validateBundle(bundle(csvWith({ ...deployments('a'), installModes: installModes('AllNamespaces') })))).toEqual([]);
  });
});
