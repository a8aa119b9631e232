import type { SwaggerDocument } from './v2-document.ts';

/** Swagger 2.0 of another server, as fetched from its /openapi/v2: what is merged of it. */
export interface ExternalSwagger {
  readonly paths?: Readonly<Record<string, unknown>>;
  readonly definitions?: Readonly<Record<string, unknown>>;
}

/**
 * What kube-aggregator adds to the OpenAPI of the server every request enters: the specs of remote servers. Their
 * /openapi/v2 paths and definitions merged into /openapi/v2 (this server's own paths and definitions win a conflict,
 * as kube's merge keeps the local spec's), and their group-versions' /openapi/v3 documents listed in the v3 index
 * and served as fetched. `APIProvider.openAPI` gives it.
 */
export interface ExternalOpenAPI {
  /** Changes whenever the other methods would answer differently: the documents and their ETags are rebuilt. */
  generation(): number;
  /** In merge order (kube: the APIServices' priority order). */
  v2Specs(): readonly ExternalSwagger[];
  /** v3 documents by index key (`apis/<group>/<version>`), the bytes as the remote served them. */
  v3Documents(): ReadonlyMap<string, Buffer>;
}

/**
 * kube's aggregated v2 spec: the local document, then each external spec's paths not already there and its definitions
 * under names not already taken, paths and definitions sorted as kube-openapi marshals them (map keys in order).
 */
export function mergeSwagger(local: SwaggerDocument, specs: readonly ExternalSwagger[]): SwaggerDocument {
  if (specs.length === 0) return local;
  const paths: Record<string, Record<string, unknown>> = { ...local.paths };
  const definitions: Record<string, Record<string, unknown>> = { ...local.definitions };
  for (const spec of specs) {
    for (const [path, item] of Object.entries(spec.paths ?? {})) if (!(path in paths)) paths[path] = item as Record<string, unknown>;
    for (const [name, schema] of Object.entries(spec.definitions ?? {}))
      if (!(name in definitions)) definitions[name] = schema as Record<string, unknown>;
  }
  const sorted = <T>(o: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ...local, paths: sorted(paths), definitions: sorted(definitions) };
}
