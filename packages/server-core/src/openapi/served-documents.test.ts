import { ConfigMap, defineResource, Namespace, Secret } from '@kapi/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OpenAPIDocuments } from './served-documents.ts';
import { Widget } from './test-support/widget.ts';

const Gadget = defineResource({
  group: 'example.kapi.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: false,
  versions: [{ name: 'v1', schema: z.object({ spec: z.object({ size: z.int() }) }) }],
});

describe('OpenAPIDocuments with the previous documents', () => {
  const at = (ms: number) => ({ now: () => new Date(ms) });

  it('keeps the v3 document of each group-version whose kinds are the same definitions, and rebuilds the others', () => {
    const first = new OpenAPIDocuments([Namespace, ConfigMap, Widget], at(1000));
    const second = new OpenAPIDocuments([Namespace, ConfigMap, Widget, Gadget], { ...at(2000), previous: first });
    // The core group did not change: the same bytes, hash and Last-Modified.
    expect(second.v3.get('api/v1')).toBe(first.v3.get('api/v1'));
    const widgets = second.v3.get('apis/example.kapi.dev/v1');
    expect(widgets?.etag).not.toBe(first.v3.get('apis/example.kapi.dev/v1')?.etag);
    expect(widgets?.lastModified).toEqual(new Date(2000));
    expect(JSON.parse(widgets?.json.toString() ?? '{}').components.schemas).toHaveProperty(['dev.kapi.example.v1.Gadget']);
    expect(second.index.etag).not.toBe(first.index.etag);

    // A changed core group (another kind) is rebuilt; the index names each document's current hash.
    const third = new OpenAPIDocuments([Namespace, ConfigMap, Secret, Widget, Gadget], { ...at(3000), previous: second });
    expect(third.v3.get('api/v1')).not.toBe(second.v3.get('api/v1'));
    expect(third.v3.get('apis/example.kapi.dev/v1')).toBe(widgets);
    const index = JSON.parse(third.index.json.toString()) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(index.paths['api/v1']?.serverRelativeURL).toContain(third.v3.get('api/v1')?.etag);

    // The same documents as built afresh.
    const fresh = new OpenAPIDocuments([Namespace, ConfigMap, Secret, Widget, Gadget]);
    for (const [key, doc] of fresh.v3) expect(third.v3.get(key)?.etag).toBe(doc.etag);
    expect(third.index.etag).toBe(fresh.index.etag);
  });
});
