import { describe, expect, it } from 'vitest';
import { parseIncludeObject } from './include-object.ts';

describe('parseIncludeObject', () => {
  it('defaults an empty or missing value to Metadata', () => {
    expect(parseIncludeObject(undefined)).toEqual({ policy: 'Metadata' });
    expect(parseIncludeObject('')).toEqual({ policy: 'Metadata' });
    expect(parseIncludeObject('Metadata')).toEqual({ policy: 'Metadata' });
    expect(parseIncludeObject('None')).toEqual({ policy: 'None' });
    expect(parseIncludeObject('Object')).toEqual({ policy: 'Object' });
  });

  it('words a bad value as kube-apiserver’s 400', () => {
    expect(parseIncludeObject('object')).toEqual({
      message: `Unable to convert to Table as requested: includeObject: Invalid value: "object": must be 'Metadata', 'Object', 'None', or empty`,
    });
  });
});
