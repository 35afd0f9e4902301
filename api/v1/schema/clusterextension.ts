// The ClusterExtension CRD (standard feature set): the single source config/crd/bases is generated from.
import {
  ClusterExtensionCRDName,
  ClusterExtensionKind,
  ClusterExtensionListKind,
  ClusterExtensionResource,
  ClusterExtensionSingular,
  GroupName,
  Version,
} from '../groupversion.ts';
import {
  ageColumn,
  apiVersionProperty,
  conditionsProperty,
  dns1123SubdomainMessage,
  dns1123SubdomainRule,
  immutableRule,
  kindProperty,
  labelSelectorProperty,
  metadataProperty,
} from './common.ts';
import type { CustomResourceDefinition, JSONSchemaProps } from './types.ts';

/** Masterminds/semver v3 constraint syntax, as upstream's CEL regex accepts it (quirks included). */
const versionRule = String.raw`self.matches("^(\\s*(=||!=|>|<|>=|=>|<=|=<|~|~>|\\^)\\s*(v?(0|[1-9]\\d*|[x|X|\\*])(\\.(0|[1-9]\\d*|x|X|\\*]))?(\\.(0|[1-9]\\d*|x|X|\\*))?(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?)\\s*)((?:\\s+|,\\s*|\\s*\\|\\|\\s*)(=||!=|>|<|>=|=>|<=|=<|~|~>|\\^)\\s*(v?(0|[1-9]\\d*|x|X|\\*])(\\.(0|[1-9]\\d*|x|X|\\*))?(\\.(0|[1-9]\\d*|x|X|\\*]))?(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?)\\s*)*$")`;

const semverRule = String.raw`self.matches("^([0-9]+)(\\.[0-9]+)?(\\.[0-9]+)?(-([-0-9A-Za-z]+(\\.[-0-9A-Za-z]+)*))?(\\+([-0-9A-Za-z]+(-\\.[-0-9A-Za-z]+)*))?")`;

const versionDescription = `version limits which versions of the package may be installed, as one version or a range of
versions, in at most 64 characters. Left out, the newest available version is installed and
upgrades follow it.

A range is one or more comparisons separated by spaces or commas (all must hold); "||" separates
alternatives (any may hold). A range lets the extension upgrade automatically within it. For
example ">=3.0, <3.6" installs a version from 3.0.0 up to, but excluding, 3.6.0, and later moves to
newer versions in that range.

A bare version such as "0.6.0" pins the extension: exactly that version is installed and it is
never upgraded automatically.

Operators: "=" (equal), "!=" (not equal), "<", ">", "<=", ">=".

Wildcards: "x", "X" and "*" stand for any number in a position:
  - "2.5.x" means ">=2.5.0, <2.6.0"
  - ">= 2.5.x" means ">= 2.5.0"
  - "<= 4.x" means "< 5"
  - "*" alone matches every version

Tilde ranges ("~") allow patch-level changes, or minor-level ones when only a major is given:
  - "~2.5.1" means ">=2.5.1, <2.6.0"
  - "~3" and "~3.x" mean ">=3, <4"
  - "~4.1" means ">=4.1, <4.2"

Caret ranges ("^") allow changes that keep the left-most non-zero number, so below 1.0.0 the minor
(or patch) number is what stays fixed:
  - "^2.5.1" means ">=2.5.1, <3.0.0"
  - "^3.x" means ">=3.0.0, <4"
  - "^0.4.1" means ">=0.4.1, <0.5.0"
  - "^0.0.7" means ">=0.0.7, <0.0.8"
  - "^0" means ">=0.0.0, <1.0.0"

Alternatives: ">=2.0.0, <3.0.0 || >4.0.0", or "^1 || ^4".

Versions follow Semantic Versioning, https://semver.org/.`;

const channelsDescription = `channels restricts installation to bundles in these channels of the package. A channel is a
sequence of releases the package author publishes (for example "stable" or "candidate").

When set, a bundle is a candidate only if it is in one of the channels and also satisfies version,
and automatic upgrades only follow the upgrade edges of these channels. When left out, the upgrade
edges of every channel count.

Each entry is an RFC 1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending
with a letter or digit, at most 253 characters (so "stable-v2" and "1.4.x" are fine; "-beta",
"beta-" and "under_score" are not). At most 256 entries.`;

const source: JSONSchemaProps = {
  type: 'object',
  description: `source says where the content to install comes from; sourceType picks the kind of source. Only
"Catalog" exists, and it needs the catalog field. Smallest example:

  source:
    sourceType: Catalog
    catalog:
      packageName: my-operator`,
  required: ['sourceType'],
  'x-kubernetes-validations': [
    {
      rule: `has(self.sourceType) && self.sourceType == 'Catalog' ? has(self.catalog) : !has(self.catalog)`,
      message: 'catalog is required when sourceType is Catalog, and forbidden otherwise',
    },
  ],
  properties: {
    catalog: {
      type: 'object',
      description: `catalog chooses a package, and optionally a version range and channels, from the ClusterCatalogs
on the cluster. It must be set when sourceType is "Catalog" and left out otherwise.`,
      required: ['packageName'],
      properties: {
        channels: {
          type: 'array',
          description: channelsDescription,
          maxItems: 256,
          items: {
            type: 'string',
            maxLength: 253,
            'x-kubernetes-validations': [
              { rule: dns1123SubdomainRule, message: 'channels entries must be valid DNS1123 subdomains' },
            ],
          },
        },
        packageName: {
          type: 'string',
          maxLength: 253,
          description: `packageName is the catalog package to install. It is required and cannot be changed later.
It is an RFC 1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending with a
letter or digit, at most 253 characters (for example "my-operator" or "2fa-operator").`,
          'x-kubernetes-validations': [
            immutableRule('packageName is immutable'),
            { rule: dns1123SubdomainRule, message: dns1123SubdomainMessage('packageName') },
          ],
        },
        selector: labelSelectorProperty(`selector picks, by their labels, the ClusterCatalogs whose content is searched for the
package. Left out, every ClusterCatalog is searched. Every ClusterCatalog carries the label
olm.operatorframework.io/metadata.name=<its name>, so one catalog can be selected by name.`),
        upgradeConstraintPolicy: {
          type: 'string',
          enum: ['CatalogProvided', 'SelfCertified'],
          default: 'CatalogProvided',
          description: `upgradeConstraintPolicy says whether the package author's upgrade paths are enforced.

CatalogProvided (the default): the extension only moves to versions the catalog declares as upgrades
from the installed one.
SelfCertified: the catalog's upgrade paths are ignored, so any version allowed by version and
channels may be installed, including a downgrade. This can break the extension or lose its data;
use it only after checking the change yourself.`,
        },
        version: {
          type: 'string',
          maxLength: 64,
          description: versionDescription,
          'x-kubernetes-validations': [{ rule: versionRule, message: 'invalid version expression' }],
        },
      },
    },
    sourceType: {
      type: 'string',
      enum: ['Catalog'],
      description: `sourceType selects the kind of source. Only "Catalog" exists: the bundle to install is chosen
from the content of the ClusterCatalogs on the cluster, configured in the catalog field.`,
    },
  },
};

const install: JSONSchemaProps = {
  type: 'object',
  description: 'install tunes how the content is installed, currently the checks run beforehand. Optional.',
  'x-kubernetes-validations': [
    { rule: 'has(self.preflight)', message: 'at least one of [preflight] are required when install is specified' },
  ],
  properties: {
    preflight: {
      type: 'object',
      description: `preflight configures the checks run before the package content is installed or upgraded. When
set, it takes the place of the default check configuration; when left out, the defaults apply.`,
      required: ['crdUpgradeSafety'],
      'x-kubernetes-validations': [
        {
          rule: 'has(self.crdUpgradeSafety)',
          message: 'at least one of [crdUpgradeSafety] are required when preflight is specified',
        },
      ],
      properties: {
        crdUpgradeSafety: {
          type: 'object',
          description: `crdUpgradeSafety configures the check that compares each CustomResourceDefinition in an upgrade
with the one on the cluster and stops changes that could lose or invalidate stored objects.`,
          required: ['enforcement'],
          properties: {
            enforcement: {
              type: 'string',
              enum: ['None', 'Strict'],
              description: `enforcement turns the CRD upgrade check on or off: "Strict" (the behaviour when this block is
absent) runs it on every upgrade; "None" skips it, which can lose data and should be used with care.`,
            },
          },
        },
      },
    },
  },
};

const serviceAccount: JSONSchemaProps = {
  type: 'object',
  description: `serviceAccount is deprecated and has no effect: it is still accepted so existing manifests stay
valid, and it will go away in a later release. operator-controller does everything for every extension with
its own service account, which holds cluster-admin; whoever may write ClusterExtensions is therefore trusted
as a cluster administrator. The ValidatingAdmissionPolicy clusterextension-serviceaccount-deprecated makes
the API server warn when it is set.

Deprecated: leave serviceAccount out; it is ignored.

Not upstream: an operator-controller started with --feature-gates=ServiceAccountInstalls=true still honours
it, installing the extension as this ServiceAccount of spec.namespace once the account exists and holds
every permission the bundle needs.`,
  minProperties: 1,
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 253,
      description: `name is deprecated and has no effect (see serviceAccount).

Deprecated: leave it out; it is ignored.

Once set it cannot be changed, only removed. It is an RFC 1123 subdomain: lowercase letters, digits, "-"
and ".", starting and ending with a letter or digit, at most 253 characters.`,
      'x-kubernetes-validations': [
        immutableRule('name is immutable once set but may be cleared'),
        { rule: dns1123SubdomainRule, message: dns1123SubdomainMessage('name') },
      ],
    },
  },
};

const spec: JSONSchemaProps = {
  type: 'object',
  description: 'spec is what should be installed and how.',
  required: ['namespace', 'source'],
  properties: {
    install,
    namespace: {
      type: 'string',
      maxLength: 63,
      description: `namespace is where the extension's namespaced objects are created unless they name another
namespace. It must exist before the extension is installed, is required, and cannot be changed later.
It is an RFC 1123 label: lowercase letters, digits and "-", starting and ending with a letter or
digit, at most 63 characters.`,
      'x-kubernetes-validations': [
        immutableRule('namespace is immutable'),
        { rule: 'self.matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")', message: 'namespace must be a valid DNS1123 label' },
      ],
    },
    serviceAccount,
    source,
  },
};

/** Experimental feature set only: the bundle configuration handed to the renderer (olmv1.md §1.1, §4.5). */
const config: JSONSchemaProps = {
  type: 'object',
  description: `config is the bundle's configuration, checked against the schema the bundle allows before anything
is rendered: for registry+v1 bundles, watchNamespace (the namespace the operator watches, for bundles
that support OwnNamespace or SingleNamespace install modes) and deploymentConfig (env, envFrom,
volumes, volumeMounts, tolerations, resources, nodeSelector, affinity and annotations merged into the
operator's Deployments). Optional.`,
  required: ['configType'],
  'x-kubernetes-validations': [
    {
      rule: "has(self.configType) && self.configType == 'Inline' ?has(self.inline) : !has(self.inline)",
      message: 'inline is required when configType is Inline, and forbidden otherwise',
    },
  ],
  properties: {
    configType: {
      type: 'string',
      enum: ['Inline'],
      description: 'configType says where the configuration is; "Inline" (the only value) means the inline field.',
    },
    inline: {
      type: 'object',
      minProperties: 1,
      'x-kubernetes-preserve-unknown-fields': true,
      description: 'inline is the configuration as a JSON object; at least one property.',
    },
  },
};

const status: JSONSchemaProps = {
  type: 'object',
  description: 'status is what the controller observed and did for this extension.',
  properties: {
    conditions: conditionsProperty(`conditions describe the extension's state.

Installed: is a bundle of the package installed?
  - True, reason Succeeded: yes, status.install names it.
  - False, reason Failed: no bundle is installed.

Progressing: is the extension moving towards what spec asks for?
  - True, reason Succeeded: the desired state was reached; later changes will be picked up.
  - True, reason Retrying: an error occurred that a later attempt may get past.
  - False, reason Blocked: an error occurred that a person has to fix.

With a catalog source, the package author's deprecation notices are reported too:
  - PackageDeprecated: the package is deprecated (True), not (False), or the catalog data is
    unavailable (Unknown).
  - ChannelDeprecated: one of the requested channels is deprecated (True), none is (False), or
    unknown as above.
  - BundleDeprecated: the installed bundle is deprecated (True), not (False), or unknown because
    nothing is installed yet or the catalog data is unavailable.
  - Deprecated: True if any of the three is True, False if none is, Unknown without catalog data.`),
    install: {
      type: 'object',
      description: 'install reports what is installed for this extension right now.',
      required: ['bundle'],
      properties: {
        bundle: {
          type: 'object',
          description: `bundle identifies the installed bundle: one version of the package, i.e. the set of objects
applied to the cluster to install that version.`,
          required: ['name', 'version'],
          properties: {
            name: {
              type: 'string',
              description: `name is the bundle's name, an RFC 1123 subdomain: lowercase letters, digits, "-" and ".",
starting and ending with a letter or digit, at most 253 characters.`,
              // Upstream's message names packageName here; clients match on it, so it stays.
              'x-kubernetes-validations': [{ rule: dns1123SubdomainRule, message: dns1123SubdomainMessage('packageName') }],
            },
            version: {
              type: 'string',
              description: "version is the bundle's version, a semantic version (https://semver.org/).",
              'x-kubernetes-validations': [{ rule: semverRule, message: 'version must be well-formed semver' }],
            },
          },
        },
      },
    },
  },
};

export const clusterExtensionCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: ClusterExtensionCRDName,
    annotations: { 'olm.operatorframework.io/generator': 'standard' },
  },
  spec: {
    group: GroupName,
    names: {
      kind: ClusterExtensionKind,
      listKind: ClusterExtensionListKind,
      plural: ClusterExtensionResource,
      singular: ClusterExtensionSingular,
    },
    scope: 'Cluster',
    versions: [
      {
        name: Version,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Installed Bundle', type: 'string', jsonPath: '.status.install.bundle.name' },
          { name: 'Version', type: 'string', jsonPath: '.status.install.bundle.version' },
          { name: 'Installed', type: 'string', jsonPath: ".status.conditions[?(@.type=='Installed')].status" },
          { name: 'Progressing', type: 'string', jsonPath: ".status.conditions[?(@.type=='Progressing')].status" },
          ageColumn,
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: `A ClusterExtension installs a package from the cluster's ClusterCatalogs and keeps it at the
version its spec allows, upgrading it as new versions appear.`,
            properties: {
              apiVersion: apiVersionProperty,
              kind: kindProperty,
              metadata: metadataProperty,
              spec,
              status,
            },
          },
        },
      },
    ],
  },
};

/** Experimental feature set only (BundleReleaseSupport): `status.install.bundle.release`. */
const bundleRelease: JSONSchemaProps = {
  type: 'string',
  maxLength: 20,
  description: `release identifies one release of the bundle's version: a re-publication of the same version,
usually to fix packaging or metadata. Among releases of one version the higher is preferred, and a bundle without
a release comes last. It is dot-separated identifiers, each a number without leading zeros or an alphanumeric
string ("2", "1.el9", "3.alpha.1"), compared one by one: numbers as integers, strings lexically, numbers before
strings. It is the bundle's explicit release when its package metadata has one, otherwise the release a
registry+v1 bundle carries in its version's build metadata ("2" of "1.0.0+2"); absent when there is none.`,
  'x-kubernetes-validations': [
    {
      rule: 'self.matches("^$|^(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\\\\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*$")',
      message: 'release must be empty or consist of dot-separated identifiers (numeric without leading zeros, or alphanumeric)',
    },
  ],
};

/** Experimental feature set only (BoxcutterRuntime): copied into each ClusterObjectSet of the extension. */
const progressDeadlineMinutes: JSONSchemaProps = {
  type: 'integer',
  format: 'int32',
  minimum: 10,
  maximum: 720,
  description: `progressDeadlineMinutes, when set (10 to 720), is how long a new revision may take to roll out before
the extension reports Progressing=False with reason ProgressDeadlineExceeded, for a person to look at. Left
out, a rollout may take as long as it takes.`,
};

/** Experimental feature set only (BoxcutterRuntime): the extension's ClusterObjectSets that are not archived. */
const activeRevisions: JSONSchemaProps = {
  type: 'array',
  description: `activeRevisions lists the extension's ClusterObjectSets that are not archived: the installed one and any
that are still rolling out.`,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  items: {
    type: 'object',
    description: 'One revision that is not archived.',
    required: ['name'],
    properties: {
      conditions: conditionsProperty(`conditions are the revision's own Progressing and Available conditions while it has not
succeeded yet: they tell why an upgrade is still underway while the extension keeps running the installed
revision.`),
      name: { type: 'string', description: 'name of the ClusterObjectSet.' },
    },
  },
};

/**
 * The experimental feature set's ClusterExtension CRD: the standard one plus `spec.config`, `spec.progressDeadlineMinutes`,
 * `status.activeRevisions` and `status.install.bundle.release`.
 */
export const clusterExtensionExperimentalCRD: CustomResourceDefinition = (() => {
  const crd = structuredClone(clusterExtensionCRD);
  crd.metadata.annotations = { ...crd.metadata.annotations, 'olm.operatorframework.io/generator': 'experimental' };
  const root = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!;
  const specSchema = root['spec']!;
  specSchema.properties = { config: structuredClone(config), ...specSchema.properties, progressDeadlineMinutes: structuredClone(progressDeadlineMinutes) };
  const statusSchema = root['status']!;
  statusSchema.properties = { activeRevisions: structuredClone(activeRevisions), ...statusSchema.properties };
  const bundleSchema = statusSchema.properties['install']!.properties!['bundle']!;
  bundleSchema.properties = { ...bundleSchema.properties, release: structuredClone(bundleRelease) };
  return crd;
})();
