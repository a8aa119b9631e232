import { jsonEqual } from '@kapi/apimachinery';
import type { SwaggerDocument } from './v2-document.ts';

/** Swagger 2.0 of another server, as fetched from its /openapi/v2: what is merged of it. */
export interface ExternalSwagger {
  readonly paths?: Readonly<Record<string, unknown>>;
  readonly definitions?: Readonly<Record<string, unknown>>;
}

/**
 * What kube-aggregator adds to the OpenAPI of the server every request enters: the specs of remote servers. Their
 * /openapi/v2 paths and definitions merged into /openapi/v2 as kube's merge does (this server's paths win, a differing
 * definition of a taken name is renamed), and their group-versions' /openapi/v3 documents listed in the v3 index
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

const DEFINITION_REF = '#/definitions/';

/** Every definition a JSON value refers to (`$ref: #/definitions/<name>`). */
function refsIn(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(DEFINITION_REF)) out.add(v.slice(DEFINITION_REF.length));
      else refsIn(v, out);
    }
}

/** kube-openapi's FilterSpecByPaths: only `paths`, and the definitions they refer to, directly or not. */
function filterByPaths(spec: ExternalSwagger, paths: readonly string[]): ExternalSwagger {
  const keptPaths = Object.fromEntries(paths.map((p) => [p, spec.paths?.[p]]));
  const definitions = spec.definitions ?? {};
  const used = new Set<string>();
  refsIn(keptPaths, used);
  for (const seen = new Set<string>(); ; ) {
    const next = [...used].filter((n) => !seen.has(n));
    if (next.length === 0) break;
    for (const n of next) {
      seen.add(n);
      refsIn(definitions[n], used);
    }
  }
  return { paths: keptPaths, definitions: Object.fromEntries(Object.entries(definitions).filter(([n]) => used.has(n))) };
}

/**
 * kube-openapi's FilterSpecByPathsWithoutSideEffects: the paths starting with one of `prefixes` and the definitions
 * they use. kube-aggregator keeps only `/apis/<group>/<version>/` of a remote APIService's spec.
 */
export function filterSwaggerByPathPrefixes(spec: ExternalSwagger, prefixes: readonly string[]): ExternalSwagger {
  return filterByPaths(
    spec,
    Object.keys(spec.paths ?? {}).filter((p) => prefixes.some((prefix) => p.startsWith(prefix))),
  );
}

/** A copy of `value` with every `$ref` to a renamed definition pointing at its new name. */
function renameRefs(value: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameRefs(v, renames));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const renamed =
      k === '$ref' && typeof v === 'string' && v.startsWith(DEFINITION_REF) ? renames.get(v.slice(DEFINITION_REF.length)) : undefined;
    out[k] = renamed ? DEFINITION_REF + renamed : renameRefs(v, renames);
  }
  return out;
}

/**
 * kube-openapi's MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters, as kube-aggregator merges each remote
 * spec into the local one: a path already there is left out (with the definitions only it used); a definition of a
 * taken name that differs is renamed `<name>_v2`, `_v3`, … (reusing a renamed one that is the same) and the remote's
 * references follow; then its new definitions and paths are added. kapi's documents have no shared parameters.
 */
function mergeOne(
  paths: Record<string, Record<string, unknown>>,
  definitions: Record<string, Record<string, unknown>>,
  spec: ExternalSwagger,
): void {
  if (!spec.paths) return;
  const keep = Object.keys(spec.paths).filter((p) => !(p in paths));
  if (keep.length === 0) return;
  let source = keep.length < Object.keys(spec.paths).length ? filterByPaths(spec, keep) : spec;
  const sourceDefs = source.definitions ?? {};
  if (Object.entries(sourceDefs).some(([k, v]) => k in definitions && !jsonEqual(v, definitions[k]))) {
    const used = new Set(Object.keys(definitions));
    const renames = new Map<string, string>();
    for (const [k, v] of Object.entries(sourceDefs)) {
      if (!used.has(k) || jsonEqual(v, definitions[k])) continue;
      let i = 1;
      let name = k;
      let reused = false;
      for (let found = (k in definitions); found; ) {
        i++;
        name = `${k}_v${i}`;
        found = name in definitions;
        if (found && jsonEqual(v, definitions[name])) {
          reused = true;
          break;
        }
      }
      if (!reused) {
        while (used.has(name) || name in sourceDefs) {
          i++;
          name = `${k}_v${i}`;
        }
        used.add(name);
      }
      renames.set(k, name);
    }
    const renamedDefs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(sourceDefs)) renamedDefs[renames.get(k) ?? k] = renameRefs(v, renames);
    source = { paths: renameRefs(source.paths, renames) as Record<string, unknown>, definitions: renamedDefs };
  }
  for (const [k, v] of Object.entries(source.definitions ?? {})) if (!(k in definitions)) definitions[k] = v as Record<string, unknown>;
  for (const [k, v] of Object.entries(source.paths ?? {})) paths[k] = v as Record<string, unknown>;
}

/**
 * kube's aggregated v2 spec: the local document, then each external spec merged in order (see mergeOne), paths and
 * definitions sorted as kube-openapi marshals them (map keys in order).
 */
export function mergeSwagger(local: SwaggerDocument, specs: readonly ExternalSwagger[]): SwaggerDocument {
  if (specs.length === 0) return local;
  const paths: Record<string, Record<string, unknown>> = { ...local.paths };
  const definitions: Record<string, Record<string, unknown>> = { ...local.definitions };
  for (const spec of specs) mergeOne(paths, definitions, spec);
  const sorted = <T>(o: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ...local, paths: sorted(paths), definitions: sorted(definitions) };
}
