import { describe, expect, it } from 'vitest';
import { fieldName, queryFieldName, typeName } from './names.ts';

describe('GraphQL names of catalog names', () => {
  it('field names: camelCase words of the key', () => {
    const cases: [string, string][] = [
      ['name', 'name'],
      ['defaultChannel', 'defaultChannel'],
      ['package-name', 'packageName'],
      ['default_channel', 'defaultChannel'],
      ['related-images', 'relatedImages'],
      ['my.field.name', 'myFieldName'],
      ['mixed_case-field.name', 'mixedCaseFieldName'],
      ['CamelCase', 'camelCase'],
      ['UPPERCASE', 'uppercase'],
      ['API_KEY', 'apiKey'],
      ['foo_barBaz', 'fooBarbaz'],
      ['__private', 'private'],
      ['trailing_', 'trailing'],
      ['', 'value'],
      ['123invalid', 'field_123invalid'],
      ['123', 'field_123'],
      ['---', 'field_'],
      ['héllo wörld', 'hLloWRld'],
    ];
    for (const [key, want] of cases) expect(fieldName(key), key).toBe(want);
  });

  it('type names: PascalCase words, leading digits dropped', () => {
    const cases: [string, string][] = [
      ['olm.package', 'OlmPackage'],
      ['olm.gvk', 'OlmGvk'],
      ['olm.deprecations', 'OlmDeprecations'],
      ['some-type', 'SomeType'],
      ['complex.type-name_here', 'ComplexTypeNameHere'],
      ['relatedImages', 'Relatedimages'],
      ['', 'Unknown'],
      ['...', 'Unknown'],
      ['123invalid', 'Invalid'],
    ];
    for (const [name, want] of cases) expect(typeName(name), name).toBe(want);
  });

  it('query fields: alphanumerics lower-cased plus "s", however that reads', () => {
    expect(queryFieldName('olm.bundle')).toBe('olmbundles');
    expect(queryFieldName('olm.package')).toBe('olmpackages');
    expect(queryFieldName('olm.deprecations')).toBe('olmdeprecationss');
    expect(queryFieldName('Helm.Chart')).toBe('helmcharts');
    expect(queryFieldName('index')).toBe('indexs');
  });
});
