import { describe, expect, it } from 'vitest';
import { classicPropertiesFromAnnotation, v1PropertiesFromAnnotation } from './properties.ts';

describe('classic: operatorframework.io/properties (projection.PropertyListFromPropertiesAnnotation)', () => {
  it('reads type and the raw JSON text of each value', () => {
    expect(classicPropertiesFromAnnotation('{"properties":[{"type":"olm.maxOpenShiftVersion","value":"4.22"},{"type":"olm.maxOpenShiftVersion","value":4.80},{"type":"olm.gvk","value":{"group":"g"}}]}')).toEqual([
      { type: 'olm.maxOpenShiftVersion', value: '"4.22"' },
      { type: 'olm.maxOpenShiftVersion', value: '4.80' },
      { type: 'olm.gvk', value: '{"group":"g"}' },
    ]);
  });

  it('null, {} and a missing value are what Go decodes them to', () => {
    expect(classicPropertiesFromAnnotation('null')).toEqual([]);
    expect(classicPropertiesFromAnnotation('{}')).toEqual([]);
    expect(classicPropertiesFromAnnotation('{"Properties":[{"Type":"t"}]}')).toEqual([{ type: 't', value: '' }]);
  });

  it.each([
    ['', 'failed to unmarshal properties annotation: unexpected end of JSON input'],
    ['{"properties":[}', "failed to unmarshal properties annotation: invalid character '}' looking for beginning of value"],
    ['[]', 'failed to unmarshal properties annotation: json: cannot unmarshal array into Go value of type projection.propertiesAnnotation'],
    ['{"properties":"x"}', 'failed to unmarshal properties annotation: json: cannot unmarshal string into Go struct field propertiesAnnotation.properties of type []projection.property'],
    ['{"properties":[1]}', 'failed to unmarshal properties annotation: json: cannot unmarshal number into Go struct field propertiesAnnotation.properties of type projection.property'],
    [
      '{"properties":[{"type":1,"value":"4.8"}]}',
      'failed to unmarshal properties annotation: json: cannot unmarshal number into Go struct field propertiesAnnotation.properties.type of type string',
    ],
  ])('%j → %s', (annotation, message) => {
    expect(() => classicPropertiesFromAnnotation(annotation)).toThrow(message);
  });
});

describe('v1: olm.properties of a revision (a JSON array)', () => {
  it('reads the array', () => {
    expect(v1PropertiesFromAnnotation('[{"type":"olm.maxOpenShiftVersion","value":4.18}]')).toEqual([{ type: 'olm.maxOpenShiftVersion', value: '4.18' }]);
    expect(v1PropertiesFromAnnotation('null')).toEqual([]);
  });

  it.each([
    ['{"properties":[]}', 'failed to unmarshal properties annotation: json: cannot unmarshal object into Go value of type []property.Property'],
    ['["x"]', 'failed to unmarshal properties annotation: json: cannot unmarshal string into Go value of type property.Property'],
    ['[{"type":true}]', 'failed to unmarshal properties annotation: json: cannot unmarshal bool into Go struct field Property.type of type string'],
    ['[{"type":"a",}]', "failed to unmarshal properties annotation: invalid character '}' looking for beginning of object key string"],
  ])('%j → %s', (annotation, message) => {
    expect(() => v1PropertiesFromAnnotation(annotation)).toThrow(message);
  });
});
