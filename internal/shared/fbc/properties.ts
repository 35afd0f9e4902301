// alpha/property.Parse over a bundle's properties, reduced to what validation and summaries
// need: the types in order, the first parse error (opm's text), the `olm.package` values and the
// number of `olm.bundle.object` properties. Values themselves are not kept.

import {
  BundleObjectPropertyType,
  ChannelPropertyType,
  CSVMetadataPropertyType,
  GVKPropertyType,
  GVKRequiredPropertyType,
  PackagePropertyType,
  PackageRequiredPropertyType,
  checkGoJSON,
  goField,
  goString,
  type GoType,
} from './gojson.ts';
import { msg } from './messages.ts';
import { checkYAMLOrJSON } from './yaml.ts';

export const PROPERTY_PACKAGE = 'olm.package';
export const PROPERTY_BUNDLE_OBJECT = 'olm.bundle.object';
export const PROPERTY_CSV_METADATA = 'olm.csv.metadata';

/** Property types alpha/property.Parse decodes into a struct; every other type only has to be JSON. */
const TYPED: Readonly<Record<string, GoType>> = {
  'olm.package': PackagePropertyType,
  'olm.package.required': PackageRequiredPropertyType,
  'olm.gvk': GVKPropertyType,
  'olm.gvk.required': GVKRequiredPropertyType,
  'olm.bundle.object': BundleObjectPropertyType,
  'olm.csv.metadata': CSVMetadataPropertyType,
  'olm.channel': ChannelPropertyType,
};

/** The value of an `olm.package` property. */
export interface PackageProperty {
  readonly packageName: string;
  readonly version: string;
  /** `""` when there is no release. */
  readonly release: string;
}

export interface PropertySummary {
  /** Every property's type, in order. */
  readonly types: readonly string[];
  /** property.Parse's error (`parse property[2] of type "olm.foo": …`), if any. */
  readonly error?: string;
  /** Decoded `olm.package` values (empty when `error` is set). */
  readonly packages: readonly PackageProperty[];
  /** Number of `olm.bundle.object` properties. */
  readonly bundleObjects: number;
}

/** A property as decoded from a blob: `value` undefined when the key is missing. */
export interface Property {
  readonly type: string;
  readonly value?: unknown;
}

/** property.Parse. */
export function summarizeProperties(props: readonly Property[]): PropertySummary {
  const types: string[] = [];
  const packages: PackageProperty[] = [];
  let bundleObjects = 0;
  let error: string | undefined;
  for (let i = 0; i < props.length; i++) {
    const p = props[i] as Property;
    types.push(p.type);
    if (error !== undefined) continue;
    let err: string | undefined;
    if (p.value === undefined) err = msg.unexpectedEndOfJSON;
    else {
      const t = TYPED[p.type];
      if (t !== undefined) err = checkGoJSON(p.value, t);
    }
    if (err !== undefined) {
      error = msg.parseProperty(i, p.type, err);
      continue;
    }
    if (p.type === PROPERTY_PACKAGE) {
      packages.push({
        packageName: goString(p.value, 'packageName'),
        version: goString(p.value, 'version'),
        release: goString(p.value, 'release'),
      });
    } else if (p.type === PROPERTY_BUNDLE_OBJECT) bundleObjects++;
  }
  return error === undefined ? { types, packages, bundleObjects } : { types, error, packages: [], bundleObjects };
}

/**
 * declcfg's readBundleObjects, run when a bundle blob is loaded: each `olm.bundle.object`
 * property must decode and its data must be YAML or JSON. Returns opm's error text or undefined.
 */
export function checkBundleObjects(pkg: string, bundle: string, props: readonly Property[]): string | undefined {
  for (let i = 0; i < props.length; i++) {
    const p = props[i] as Property;
    if (p.type !== PROPERTY_BUNDLE_OBJECT) continue;
    const err = p.value === undefined ? msg.unexpectedEndOfJSON : checkGoJSON(p.value, BundleObjectPropertyType);
    if (err !== undefined) return msg.readBundleObjects(msg.bundleObjectParse(pkg, bundle, i, err));
    const data = goField(p.value, 'data');
    if (typeof data !== 'string' || data === '') continue;
    const text = Buffer.from(data, 'base64').toString('utf8');
    const convErr = checkYAMLOrJSON(text);
    if (convErr !== undefined) return msg.readBundleObjects(msg.bundleObjectToJSON(pkg, bundle, i, convErr));
  }
  return undefined;
}
