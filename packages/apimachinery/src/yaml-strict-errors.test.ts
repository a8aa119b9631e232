import { describe, expect, it } from 'vitest';
import { strictDecodingWarnings, yamlDuplicateKeyMessage, yamlStrictDecodingError } from './yaml-strict-errors.ts';

describe('YAML strict decoding errors, in kube’s words', () => {
  it('words a repeated key as go-yaml does: a string quoted as Go quotes it, other keys as Go prints them', () => {
    expect(yamlDuplicateKeyMessage(10, 'paused')).toBe('line 10: key "paused" already set in map');
    expect(yamlDuplicateKeyMessage(3, 'tab\there "q"')).toBe('line 3: key "tab\\there \\"q\\"" already set in map');
    expect(yamlDuplicateKeyMessage(4, 9)).toBe('line 4: key 9 already set in map');
    expect(yamlDuplicateKeyMessage(5, true)).toBe('line 5: key true already set in map');
    expect(yamlDuplicateKeyMessage(6, null)).toBe('line 6: key <nil> already set in map');
  });

  it('is YAMLToJSONStrict’s one error for them all', () => {
    expect(yamlStrictDecodingError(['line 2: key "a" already set in map', 'line 5: key "b" already set in map'])).toBe(
      'error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key "a" already set in map\n  line 5: key "b" already set in map',
    );
  });

  it('splits a YAML error into a warning per line, as addStrictDecodingWarnings; other errors stay whole', () => {
    const yaml = yamlStrictDecodingError(['line 2: key "a" already set in map', 'line 5: key "b" already set in map']);
    expect(strictDecodingWarnings([yaml, 'unknown field "spec.x"'])).toEqual([
      'line 2: key "a" already set in map',
      'line 5: key "b" already set in map',
      'unknown field "spec.x"',
    ]);
    // The short form (yaml.UnmarshalStrict's, without the conversion's prefix) too.
    expect(strictDecodingWarnings(['yaml: unmarshal errors:\n  line 1: key "k" already set in map'])).toEqual([
      'line 1: key "k" already set in map',
    ]);
    expect(strictDecodingWarnings(['duplicate field "data.a"'])).toEqual(['duplicate field "data.a"']);
    expect(strictDecodingWarnings([])).toEqual([]);
  });
});
