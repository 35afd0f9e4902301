// crdify's configuration as a preflight option: per-check enforcement and options, unhandled enforcement,
// conversion policy, and crdify's runner errors for a bad configuration.
import { describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../../api/v1/index.ts';
import { CrdUpgradeSafetyPreflight, OLM_CRDIFY_CONFIG, resolveConfig, validateUpgrade, type Crd, type CrdVersion, type Schema } from './index.ts';

function crd(versions: [string, Schema][], webhook = false): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      versions: versions.map(
        ([name, mode]): CrdVersion => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { mode } } } }),
      ),
      ...(webhook && { conversion: { strategy: 'Webhook' } }),
    },
  };
}

describe('crdify configuration', () => {
  const before = crd([['v1', { type: 'string', enum: ['a'], description: 'old' }]]);
  const after = crd([['v1', { type: 'string', enum: ['a', 'b'], description: 'new' }]]);

  it("OLM's configuration: new enum values and description changes pass", () => {
    expect(validateUpgrade(before, after)).toEqual([]);
    expect(validateUpgrade(before, after, OLM_CRDIFY_CONFIG)).toEqual([]);
  });

  it("crdify's own defaults (an empty configuration): both fail", () => {
    expect(validateUpgrade(before, after, {})).toEqual([
      'v1: ^.mode: enum: allowed enum values added : ["b"]',
      'v1: ^.mode: description: description changed : "old" -> "new"',
    ]);
  });

  it('Warn and None enforcement never fail; unhandledEnforcement None lets unhandled changes through', () => {
    const config = {
      validations: [
        { name: 'enum', enforcement: 'Warn' as const },
        { name: 'description', enforcement: 'None' as const },
      ],
      unhandledEnforcement: 'None' as const,
    };
    const formatted = crd([['v1', { type: 'string', enum: ['a', 'b'], description: 'new', format: 'email' }]]);
    expect(validateUpgrade(before, formatted, config)).toEqual([]);
    expect(validateUpgrade(before, formatted, { ...config, unhandledEnforcement: 'Error' })).toEqual([
      'v1: ^.mode: unhandled: unhandled changes found (Format "" -> "email")',
    ]);
  });

  it('conversion None compares served versions even when the new CRD converts through a webhook', () => {
    const two = crd([['v1', { type: 'string' }], ['v2', { type: 'integer' }]], true);
    expect(validateUpgrade(two, two)).toEqual([]);
    const one = crd([['v1', { type: 'string' }]]);
    expect(validateUpgrade(one, two, { ...OLM_CRDIFY_CONFIG, conversion: 'None' })).toEqual([
      'v1 -> v2: ^.mode: type: type changed : "string" -> "integer"',
    ]);
  });

  it('per-check options: nullable and pattern policies', () => {
    const strict = crd([['v1', { type: 'string', nullable: true, pattern: '^a' }]]);
    const loose = crd([['v1', { type: 'string' }]]);
    const config = {
      validations: [
        { name: 'nullable', enforcement: 'Error' as const, configuration: { removalPolicy: 'Allow' } },
        { name: 'pattern', enforcement: 'Error' as const, configuration: { removalPolicy: 'Allow' } },
      ],
    };
    expect(validateUpgrade(strict, loose, config)).toEqual([]);
    expect(validateUpgrade(strict, loose, {})).toEqual([
      'v1: ^.mode: pattern: pattern removed : "^a" -> ""',
      'v1: ^.mode: nullable: nullable removed : true -> false',
    ]);
  });

  it("a bad configuration fails with crdify's runner errors, each validation on its own line", () => {
    expect(() =>
      resolveConfig({
        validations: [
          { name: 'colour', enforcement: 'Error' },
          { name: 'enum', enforcement: 'Error', configuration: { additionPolicy: 'Maybe' } },
          { name: 'type', enforcement: 'Loud' as 'Error' },
          { name: 'nullable', enforcement: 'Error', configuration: { additionPolicy: 'Perhaps' } },
          { name: 'oneOf', enforcement: 'Error', configuration: { removalPolicy: 3 } },
        ],
      }),
    ).toThrow(
      'creating CRD validation runner: configuring validations: configuring validation "colour": unknown validation : "colour"\n' +
        'configuring validation "enum": validating enum config: unknown addition policy : "Maybe"\n' +
        'configuring validation "type": unknown enforcement policy : "Loud"\n' +
        'configuring validation "nullable": validating nullable config: unknown addition policy : "Perhaps" (valid values: "Allow", "Disallow")\n' +
        'configuring validation "oneOf": parsing config: unmarshalling input to output: json: cannot unmarshal number into Go struct field OneOfConfig.removalPolicy of type property.RemovalPolicy',
    );
  });

  it('the preflight takes the configuration as an option', async () => {
    const ext = { metadata: { name: 'ext' }, spec: { namespace: 'ns' } } as unknown as ClusterExtension;
    const signal = new AbortController().signal;
    await expect(new CrdUpgradeSafetyPreflight(async () => before).check(ext, [after], signal)).resolves.toBeUndefined();
    await expect(new CrdUpgradeSafetyPreflight(async () => before, { config: {} }).check(ext, [after], signal)).rejects.toThrow(
      'validating upgrade for CRD "crontabs.stable.example.com": v1: ^.mode: enum: allowed enum values added : ["b"]\n' +
        'v1: ^.mode: description: description changed : "old" -> "new"',
    );
    const bad = new CrdUpgradeSafetyPreflight(async () => before, { config: { validations: [{ name: 'x', enforcement: 'None' }] } });
    await expect(bad.check(ext, [], signal)).resolves.toBeUndefined();
    await expect(bad.check(ext, [after], signal)).rejects.toThrow('creating CRD validation runner: configuring validations: configuring validation "x": unknown validation : "x"');
  });
});
