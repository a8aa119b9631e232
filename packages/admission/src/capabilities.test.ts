import { describe, expect, it } from 'vitest';
import { isMutatingAdmission, isValidatingAdmission } from './capabilities.ts';
import { admissionPlugin } from './plugin-factory.ts';

describe('isMutatingAdmission / isValidatingAdmission', () => {
  it('look at which methods the plugin has', () => {
    const m = admissionPlugin({ name: 'm', admit: () => {} });
    const v = admissionPlugin({ name: 'v', validate: () => {} });
    expect([isMutatingAdmission(m), isValidatingAdmission(m)]).toEqual([true, false]);
    expect([isMutatingAdmission(v), isValidatingAdmission(v)]).toEqual([false, true]);
  });
});
