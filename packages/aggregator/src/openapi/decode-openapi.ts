import { type ExternalSwagger, encodeSwaggerProtobuf } from '@kapi/server-core';
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

/**
 * /openapi/v2 as the paths and definitions merged (everything else of it is not used). Deeper than this schema, what
 * kube's typed decoding would refuse is found by encoding it as the server's protobuf /openapi/v2 will: a spec that
 * does not encode is refused here, so it never fails the merged document for every client.
 */
export function decodeSwagger(body: Buffer): ExternalSwagger {
  const { paths, definitions } = decodeRemoteJSON(swagger, body, '/openapi/v2');
  const spec = { ...(paths ? { paths } : {}), ...(definitions ? { definitions } : {}) };
  try {
    encodeSwaggerProtobuf({ swagger: '2.0', ...spec });
  } catch (err) {
    throw new Error(`failed to decode /openapi/v2: ${err instanceof Error ? err.message : String(err)}`);
  }
  return spec;
}

/** /openapi/v3's index: each group-version's serverRelativeURL by its key (`apis/<group>/<version>`). */
export function decodeV3Index(body: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, entry] of Object.entries(decodeRemoteJSON(v3Index, body, '/openapi/v3').paths))
    if (entry.serverRelativeURL) out.set(key, entry.serverRelativeURL);
  return out;
}
