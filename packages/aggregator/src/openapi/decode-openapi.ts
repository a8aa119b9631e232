import type { ExternalSwagger } from '@kapi/server-core';
import { z } from 'zod';
import { decodeRemoteJSON } from '../remote/decode-remote-json.ts';

/**
 * A remote server's OpenAPI documents decoded as kube's aggregation controllers decode them (into kube-openapi's
 * spec.Swagger and the v3 discovery index): paths and definitions must be objects of objects, the index's URLs
 * strings; anything else fails the fetch and what was fetched before stays. The merge then only meets what its
 * types say.
 */

const objects = z
  .record(z.string(), z.record(z.string(), z.unknown()))
  .nullish()
  .transform((v) => v ?? undefined);
const swagger = z.object({ paths: objects, definitions: objects });
const v3Index = z.object({
  paths: z
    .record(z.string(), z.object({ serverRelativeURL: z.string().nullish() }))
    .nullish()
    .transform((v) => v ?? {}),
});

/** /openapi/v2 as the paths and definitions merged (everything else of it is not used). */
export function decodeSwagger(body: Buffer): ExternalSwagger {
  const { paths, definitions } = decodeRemoteJSON(swagger, body, '/openapi/v2');
  return { ...(paths ? { paths } : {}), ...(definitions ? { definitions } : {}) };
}

/** /openapi/v3's index: each group-version's serverRelativeURL by its key (`apis/<group>/<version>`). */
export function decodeV3Index(body: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, entry] of Object.entries(decodeRemoteJSON(v3Index, body, '/openapi/v3').paths))
    if (entry.serverRelativeURL) out.set(key, entry.serverRelativeURL);
  return out;
}
