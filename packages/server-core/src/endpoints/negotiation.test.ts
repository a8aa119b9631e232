import { describe, expect, it } from 'vitest';
import { bodyTypeOf, contentTypeOf, negotiateOutput, parseAccept } from './negotiation.ts';

describe('parseAccept', () => {
  it('orders by q, then specificity, then order; drops q=0 and malformed clauses', () => {
    const ranges = parseAccept('*/*;q=0.5, application/yaml, application/*, text/html;q=0, nonsense, application/json;q=0.9');
    expect(ranges.map((r) => `${r.type}/${r.subtype}`)).toEqual(['application/yaml', 'application/*', 'application/json', '*/*']);
  });

  it('keeps parameters, unquoted and with lower-cased names', () => {
    const [r] = parseAccept('application/json; AS="Table"; v=v1; g=meta.k8s.io');
    expect(Object.fromEntries(r?.params ?? [])).toEqual({ as: 'Table', v: 'v1', g: 'meta.k8s.io' });
  });
});

describe('negotiateOutput', () => {
  it('defaults to JSON objects', () => {
    expect(negotiateOutput(undefined)).toEqual({ mediaType: 'application/json', target: 'object' });
    expect(negotiateOutput('*/*')).toEqual({ mediaType: 'application/json', target: 'object' });
    expect(negotiateOutput('application/*')).toEqual({ mediaType: 'application/json', target: 'object' });
    expect(negotiateOutput('application/yaml')).toEqual({ mediaType: 'application/yaml', target: 'object' });
  });

  it('Table and partial metadata only where they fit, in meta.k8s.io v1 or v1beta1', () => {
    const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    expect(negotiateOutput(table, { table: true })).toEqual({ mediaType: 'application/json', target: 'Table', metaVersion: 'v1' });
    expect(negotiateOutput('application/json;as=Table;v=v1beta1;g=meta.k8s.io', { table: true })).toMatchObject({
      target: 'Table',
      metaVersion: 'v1beta1',
    });
    expect(() => negotiateOutput(table)).toThrow(/only the following media types are accepted/);
    expect(() => negotiateOutput('application/json;as=Table;v=v2;g=meta.k8s.io', { table: true })).toThrow();
    expect(() => negotiateOutput('application/json;as=Table;v=v1;g=example.com', { table: true })).toThrow();
    const partial = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
    expect(negotiateOutput(partial, { partial: 'PartialObjectMetadata' }).target).toBe('PartialObjectMetadata');
    expect(() => negotiateOutput(partial, { partial: 'PartialObjectMetadataList' })).toThrow();
    // A later acceptable clause is used when an earlier one cannot be served.
    expect(negotiateOutput(`${table}, application/json`)).toEqual({ mediaType: 'application/json', target: 'object' });
  });

  it('406 NotAcceptable when nothing fits; watches take JSON only', () => {
    try {
      negotiateOutput('application/vnd.kubernetes.protobuf');
      expect.unreachable();
    } catch (err) {
      expect((err as { status: unknown }).status).toMatchObject({ code: 406, reason: 'NotAcceptable' });
    }
    expect(() => negotiateOutput('application/yaml', { jsonOnly: true })).toThrow(
      'only the following media types are accepted: application/json',
    );
    expect(negotiateOutput('application/yaml, application/json;q=0.5', { jsonOnly: true }).mediaType).toBe('application/json');
  });
});

describe('request body types', () => {
  it('strips parameters and case from Content-Type', () => {
    expect(contentTypeOf('Application/Merge-Patch+JSON; charset=utf-8')).toBe('application/merge-patch+json');
    expect(contentTypeOf(undefined)).toBe('');
    expect(bodyTypeOf('application/merge-patch+json')).toBe('merge-patch');
    expect(bodyTypeOf('application/strategic-merge-patch+json')).toBe('strategic-merge-patch');
    expect(bodyTypeOf('application/json-patch+json')).toBe('json-patch');
    expect(bodyTypeOf('application/apply-patch+yaml')).toBe('apply-patch');
    expect(bodyTypeOf('text/plain')).toBeUndefined();
  });
});
