import { type Clock, type KubeObject, newBadRequest, type ObjectList } from '@kapi/apimachinery';
import { convertObjects, parseIncludeObject, type ResourceDefinition, toTable, versionColumns } from '@kapi/registry';
import type { RequestContext } from '../filters/context.ts';
import type { RequestInfo } from '../request-info.ts';
import type { NegotiatedOutput } from './negotiation.ts';

/** What a negotiated response target makes of a stored object or list: itself, a Table, or partial metadata. */

/**
 * The version the Store answers in: the request's, except for Tables, whose cells read the printer columns' fields
 * of the stored (storage version) object; transform converts their rows' objects to the request's version (and the
 * objects its cells read, when the version has printer columns of its own). A field selector still names the
 * request's version's selectable fields.
 */
export function storeVersion(info: RequestInfo, out: NegotiatedOutput): { version?: string; selectorVersion?: string } {
  if (out.target !== 'Table') return { version: info.apiVersion };
  return info.apiVersion ? { selectorVersion: info.apiVersion } : {};
}

/**
 * The response body for a negotiated target: the object, a Table, or partial metadata. A promise only when a Table's
 * includeObject=Object rows need a kind's asynchronous conversion (its `conversion`, e.g. a CRD's webhook), then made
 * in one call for the whole list; every other body is returned as it is, with no await.
 */
export function transform(
  def: ResourceDefinition,
  value: KubeObject | ObjectList,
  out: NegotiatedOutput,
  ctx: RequestContext,
  clock: Clock,
  noHeaders = false,
  version?: string,
): unknown | Promise<unknown> {
  switch (out.target) {
    case 'object':
      return value;
    case 'Table': {
      const include = parseIncludeObject(ctx.url.searchParams.get('includeObject') ?? undefined);
      if ('message' in include) throw newBadRequest(include.message);
      // A Table is built from stored objects (see storeVersion); includeObject=Object rows carry the request's version,
      // and a version with printer columns of its own reads them on its objects, as kube's per-version convertor does.
      const ownColumns = versionColumns(def, version) !== undefined;
      const other = version !== undefined && version !== def.storageVersion.name;
      const convert = other && (ownColumns || include.policy === 'Object');
      const isList = 'items' in value && Array.isArray(value.items);
      const items = isList ? (value as ObjectList).items : [value as KubeObject];
      const converted = convert ? convertObjects(def, items, version, isList) : items;
      const build = (rows: KubeObject[]): unknown => {
        const options = { includeObject: include.policy, noHeaders, clock, ...(version !== undefined ? { version } : {}) };
        let table: ReturnType<typeof toTable>;
        if (ownColumns) {
          // Cells and rows both from the objects in the request's version.
          const input = isList ? { ...(value as ObjectList), items: rows } : (rows[0] as KubeObject);
          table = toTable(def, input, options);
        } else {
          // Rows are built from the stored objects; each carries its converted copy.
          const byStored = convert ? new Map(items.map((o, i) => [o, rows[i] as KubeObject])) : undefined;
          const rowObject = byStored ? (o: KubeObject) => byStored.get(o) ?? o : undefined;
          table = toTable(def, value, { ...options, ...(rowObject ? { rowObject } : {}) });
        }
        // kube answers in the meta.k8s.io version asked for (kubectl ≤ 1.14 asked for v1beta1).
        return out.metaVersion === 'v1beta1' ? { ...table, apiVersion: 'meta.k8s.io/v1beta1' } : table;
      };
      return Array.isArray(converted) ? build(converted) : converted.then(build);
    }
    case 'PartialObjectMetadata':
      return partial(value as KubeObject, `meta.k8s.io/${out.metaVersion ?? 'v1'}`);
    case 'PartialObjectMetadataList': {
      const list = value as ObjectList;
      const apiVersion = `meta.k8s.io/${out.metaVersion ?? 'v1'}`;
      return {
        apiVersion,
        kind: 'PartialObjectMetadataList',
        metadata: list.metadata,
        items: list.items.map((o) => partial(o, apiVersion)),
      };
    }
  }
}

function partial(obj: KubeObject, apiVersion: string): KubeObject {
  return { apiVersion, kind: 'PartialObjectMetadata', metadata: obj.metadata };
}
