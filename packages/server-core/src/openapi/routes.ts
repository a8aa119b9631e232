import type { JSONSchema, ResourceDefinition } from '@kapi/registry';
import { definitionSubresources, SCALE_KIND, type SubresourceInfo, type VirtualResourceInfo } from '../discovery/documents.ts';
import { CONNECT_METHODS as PROXY_METHODS } from '../endpoints/subresources/proxy.ts';
import { messageKindSchemas } from './message-schemas.ts';
import { DELETE_OPTIONS, definitionName, groupCamel, groupVersionRoot, PATCH, SCALE, STATUS, WATCH_EVENT } from './names.ts';
import {
  DELETE_COLLECTION_PARAMETERS,
  DELETE_PARAMETERS,
  LIST_PARAMETERS,
  NAMESPACE_PATH,
  namePath,
  PATCH_PARAMETERS,
  type ParameterSpec,
  PRETTY,
  WRITE_PARAMETERS,
} from './parameters.ts';

/**
 * The operations kapi serves for one kind in one version, as a format-neutral model that the v3 and v2 documents
 * render. The shape follows apiextensions-apiserver's CRD OpenAPI builder (pkg/controller/openapi/builder): a list
 * for all namespaces, list/create/deletecollection on the collection, read/replace/delete/patch on the item, and
 * read/replace/patch on status and scale. Core-group kinds also get the deprecated /watch/ paths kube still publishes
 * for its built-in resources (CRDs have none).
 */

/** x-kubernetes-action. */
export type RouteAction = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection' | 'watch' | 'watchlist' | 'connect';
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface RouteResponse {
  readonly code: '200' | '201' | '202' | '401';
  readonly description: string;
  /** The response body's definition name; none for 401. */
  readonly schema?: string;
  /** Or a plain type (a connect operation's answer is a string). */
  readonly type?: 'string';
}

export interface RouteOperation {
  readonly method: HttpMethod;
  readonly operationId: string;
  readonly tag: string;
  readonly description: string;
  readonly action: RouteAction;
  readonly gvk: GroupVersionKind;
  readonly parameters: readonly ParameterSpec[];
  readonly body?: { readonly schema: string; readonly contentTypes: readonly string[]; readonly required: boolean };
  readonly produces: readonly string[];
  readonly responses: readonly RouteResponse[];
}

export interface RoutePath {
  readonly path: string;
  /** Parameters common to every operation of the path (kube puts name, namespace and pretty here). */
  readonly parameters: readonly ParameterSpec[];
  readonly operations: readonly RouteOperation[];
  /**
   * Definitions the path's operations refer to beyond the served kinds' and the shared ones: the kind of a
   * subresource storage the document has no schema for, published as an object of that kind keeping any field.
   */
  readonly schemas?: Readonly<Record<string, JSONSchema>>;
}

export const OBJECT_CONTENT_TYPES: readonly string[] = ['application/json', 'application/yaml'];
export const LIST_CONTENT_TYPES: readonly string[] = ['application/json', 'application/yaml', 'application/json;stream=watch'];
export const WATCH_CONTENT_TYPES: readonly string[] = ['application/json', 'application/yaml', 'application/json;stream=watch'];
/** The patch types the Store applies; apply-patch is listed as kube lists it. */
export const PATCH_CONTENT_TYPES: readonly string[] = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

const UNAUTHORIZED: RouteResponse = { code: '401', description: 'Unauthorized' };
const ok = (schema: string): RouteResponse => ({ code: '200', description: 'OK', schema });
const created = (schema: string): RouteResponse => ({ code: '201', description: 'Created', schema });
const accepted = (schema: string): RouteResponse => ({ code: '202', description: 'Accepted', schema });
/** A write's body: an object of `schema`, JSON or YAML. */
const body = (schema: string) => ({ schema, contentTypes: OBJECT_CONTENT_TYPES, required: true });

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? ' an ' : ' a ';
}

const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Every path serving `def` in `version`, sorted by path. Its subresources are those given, each with the verbs its
 * storage implements (default: those its definition declares, as a server serves them: namespaces/finalize, status,
 * scale).
 */
export function routesOf(
  def: ResourceDefinition,
  version: string,
  subresources: readonly SubresourceInfo[] = definitionSubresources(def),
): RoutePath[] {
  const { group, kind, plural, namespaced } = def;
  const gvk: GroupVersionKind = { group, version, kind };
  const kindSchema = definitionName(group, version, kind);
  const listSchema = definitionName(group, version, def.listKind);
  const gvId = `${upperFirst(groupCamel(group))}${upperFirst(version)}`;
  const tag = `${groupCamel(group)}_${version}`;
  const ns = namespaced ? 'Namespaced' : '';
  const root = groupVersionRoot(group, version);
  const collection = namespaced ? `${root}/namespaces/{namespace}/${plural}` : `${root}/${plural}`;
  const item = `${collection}/{name}`;
  const scope = namespaced ? [NAMESPACE_PATH] : [];
  const name = namePath(kind);

  const op = (
    o: Omit<RouteOperation, 'tag' | 'gvk' | 'produces'> & { gvk?: GroupVersionKind; produces?: readonly string[] },
  ): RouteOperation => ({
    tag,
    gvk,
    produces: OBJECT_CONTENT_TYPES,
    ...o,
  });
  const patchBody = { schema: PATCH, contentTypes: PATCH_CONTENT_TYPES, required: true };

  /** read/replace/patch of the item or one of its subresources (`sub` = "", "status", "scale"). */
  const itemOps = (sub: string, schema: string, subGvk: GroupVersionKind): RouteOperation[] => {
    const of = sub ? ` ${sub} of` : '';
    const suffix = upperFirst(sub);
    return [
      op({
        method: 'get',
        operationId: `read${gvId}${ns}${kind}${suffix}`,
        description: `read${of} the specified ${kind}`,
        action: 'get',
        gvk: subGvk,
        parameters: [],
        responses: [ok(schema), UNAUTHORIZED],
      }),
      op({
        method: 'put',
        operationId: `replace${gvId}${ns}${kind}${suffix}`,
        description: `replace${of} the specified ${kind}`,
        action: 'put',
        gvk: subGvk,
        parameters: WRITE_PARAMETERS,
        body: body(schema),
        responses: [ok(schema), created(schema), UNAUTHORIZED],
      }),
      op({
        method: 'patch',
        operationId: `patch${gvId}${ns}${kind}${suffix}`,
        description: `partially update${of} the specified ${kind}`,
        action: 'patch',
        gvk: subGvk,
        parameters: PATCH_PARAMETERS,
        body: patchBody,
        responses: [ok(schema), created(schema), UNAUTHORIZED],
      }),
    ];
  };

  const paths: RoutePath[] = [];
  if (namespaced) {
    paths.push({
      path: `${root}/${plural}`,
      parameters: [PRETTY],
      operations: [
        op({
          method: 'get',
          operationId: `list${gvId}${kind}ForAllNamespaces`,
          description: `list objects of kind ${kind}`,
          action: 'list',
          parameters: LIST_PARAMETERS,
          produces: LIST_CONTENT_TYPES,
          responses: [ok(listSchema), UNAUTHORIZED],
        }),
      ],
    });
  }
  paths.push({
    path: collection,
    parameters: [...scope, PRETTY],
    operations: [
      op({
        method: 'get',
        operationId: `list${gvId}${ns}${kind}`,
        description: `list objects of kind ${kind}`,
        action: 'list',
        parameters: LIST_PARAMETERS,
        produces: LIST_CONTENT_TYPES,
        responses: [ok(listSchema), UNAUTHORIZED],
      }),
      op({
        method: 'post',
        operationId: `create${gvId}${ns}${kind}`,
        description: `create${article(kind)}${kind}`,
        action: 'post',
        parameters: WRITE_PARAMETERS,
        body: body(kindSchema),
        responses: [ok(kindSchema), created(kindSchema), accepted(kindSchema), UNAUTHORIZED],
      }),
      op({
        method: 'delete',
        operationId: `delete${gvId}Collection${ns}${kind}`,
        description: `delete collection of ${kind}`,
        action: 'deletecollection',
        parameters: DELETE_COLLECTION_PARAMETERS,
        body: { schema: DELETE_OPTIONS, contentTypes: OBJECT_CONTENT_TYPES, required: false },
        responses: [ok(STATUS), UNAUTHORIZED],
      }),
    ],
  });
  paths.push({
    path: item,
    parameters: [name, ...scope, PRETTY],
    operations: [
      ...itemOps('', kindSchema, gvk),
      op({
        method: 'delete',
        operationId: `delete${gvId}${ns}${kind}`,
        description: `delete${article(kind)}${kind}`,
        action: 'delete',
        parameters: DELETE_PARAMETERS,
        body: { schema: DELETE_OPTIONS, contentTypes: OBJECT_CONTENT_TYPES, required: false },
        responses: [ok(STATUS), accepted(STATUS), UNAUTHORIZED],
      }),
    ].sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method)),
  });
  for (const sub of subresources) {
    if (sub.subresource === 'proxy' && def.subresources.proxy) {
      const pk = def.subresources.proxy.kind;
      const optionsGvk = pk ? { group: pk.group, version: pk.version, kind: pk.kind } : gvk;
      paths.push(...proxyRoutes({ kind, gvk: optionsGvk, gvId, tag, ns, item, scope }));
      continue;
    }
    const rk = sub.responseKind;
    const own = rk && !(rk.group === SCALE_KIND.group && rk.version === SCALE_KIND.version && rk.kind === SCALE_KIND.kind);
    const schema = !rk ? kindSchema : own ? definitionName(rk.group, rk.version, rk.kind) : SCALE;
    const subGvk: GroupVersionKind = rk ? { group: rk.group, version: rk.version, kind: rk.kind } : gvk;
    // get, update and patch as the status and scale routes have them; create as kube's NamedCreater (a token).
    const byVerb = new Map(itemOps(sub.subresource, schema, subGvk).map((o) => [o.action, o]));
    const operations: RouteOperation[] = [];
    for (const verb of sub.verbs) {
      if (verb === 'get' || verb === 'patch') operations.push(byVerb.get(verb) as RouteOperation);
      else if (verb === 'update') operations.push(byVerb.get('put') as RouteOperation);
      else if (verb === 'create')
        operations.push(
          op({
            method: 'post',
            operationId: `create${gvId}${ns}${kind}${upperFirst(sub.subresource)}`,
            description: `create ${sub.subresource} of${article(kind)}${kind}`,
            action: 'post',
            gvk: subGvk,
            parameters: WRITE_PARAMETERS,
            body: body(schema),
            responses: [ok(schema), created(schema), accepted(schema), UNAUTHORIZED],
          }),
        );
    }
    if (operations.length === 0) continue;
    operations.sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
    paths.push({
      path: `${item}/${sub.subresource}`,
      parameters: [name, ...scope, PRETTY],
      operations,
      ...(own
        ? {
            schemas: messageKindSchemas(subGvk) ?? {
              [schema]: opaqueKindSchema(subGvk, `the ${sub.subresource} subresource of ${plural}`),
            },
          }
        : {}),
    });
  }
  if (group === '') paths.push(...watchRoutes(def, { gvk, gvId, tag, ns, root }));
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const METHOD_ORDER: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * The path of a virtual resource (a review, served by code rather than a Store) with its create operation, as kube's
 * installer publishes a rest.Creater's: POST to the collection, answering the kind. Its schemas come from the
 * protobuf codec's message for the kind, else an object keeping any field. No path for one that cannot be created.
 */
export function virtualRoutes(v: VirtualResourceInfo): RoutePath[] {
  if (!v.verbs.includes('create')) return [];
  const gvk: GroupVersionKind = { group: v.group, version: v.version, kind: v.kind };
  const schema = definitionName(v.group, v.version, v.kind);
  const gvId = `${upperFirst(groupCamel(v.group))}${upperFirst(v.version)}`;
  const ns = v.namespaced ? 'Namespaced' : '';
  const root = groupVersionRoot(v.group, v.version);
  return [
    {
      path: v.namespaced ? `${root}/namespaces/{namespace}/${v.resource}` : `${root}/${v.resource}`,
      parameters: [...(v.namespaced ? [NAMESPACE_PATH] : []), PRETTY],
      operations: [
        {
          method: 'post',
          operationId: `create${gvId}${ns}${v.kind}`,
          tag: `${groupCamel(v.group)}_${v.version}`,
          description: `create${article(v.kind)}${v.kind}`,
          action: 'post',
          gvk,
          parameters: WRITE_PARAMETERS,
          body: body(schema),
          produces: OBJECT_CONTENT_TYPES,
          responses: [ok(schema), created(schema), accepted(schema), UNAUTHORIZED],
        },
      ],
      schemas: messageKindSchemas(gvk) ?? { [schema]: opaqueKindSchema(gvk, v.resource) },
    },
  ];
}

/** The methods the proxy subresource serves (kube's proxyMethods), as kube's documents list them: lower-case, sorted. */
const CONNECT_METHODS: readonly HttpMethod[] = [...PROXY_METHODS].map((m) => m.toLowerCase() as HttpMethod).sort();

/**
 * The proxy subresource's paths, as kube's installer publishes a connecter's (pods/proxy, services/proxy,
 * nodes/proxy): `<item>/proxy` and `<item>/proxy/{path}`, each with a connect operation per proxy method
 * (connect<Group><Version><Method>[Namespaced]<Kind>Proxy[WithPath]) answering a string. `gvk` is the subresource's
 * kind (ProxySubresource.kind, e.g. kube's PodProxyOptions; default the parent's), which names the `name` parameter
 * as kube's does. kapi reads no `?path=` (the subpath is the path's `{path}`), so the `path` query parameter kube
 * documents with its proxy options is not listed.
 */
function proxyRoutes(c: {
  kind: string;
  gvk: GroupVersionKind;
  gvId: string;
  tag: string;
  ns: string;
  item: string;
  scope: ParameterSpec[];
}): RoutePath[] {
  const name = namePath(c.gvk.kind);
  const subpath: ParameterSpec = { name: 'path', in: 'path', type: 'string', required: true, description: 'path to the resource' };
  const operations = (suffix: string): RouteOperation[] =>
    CONNECT_METHODS.map((method) => ({
      method,
      operationId: `connect${c.gvId}${upperFirst(method)}${c.ns}${c.kind}Proxy${suffix}`,
      tag: c.tag,
      description: `connect ${method.toUpperCase()} requests to proxy of ${c.kind}`,
      action: 'connect',
      gvk: c.gvk,
      parameters: [],
      produces: ['*/*'],
      responses: [{ code: '200', description: 'OK', type: 'string' }, UNAUTHORIZED],
    }));
  return [
    { path: `${c.item}/proxy`, parameters: [name, ...c.scope], operations: operations('') },
    { path: `${c.item}/proxy/{path}`, parameters: [name, ...c.scope, subpath], operations: operations('WithPath') },
  ];
}

/**
 * The definition of a kind whose schema kapi does not know (a subresource storage's or a virtual resource's own, of a
 * kind the protobuf codec does not model): an object of that kind that keeps any field (Swagger 2.0 renders it as a
 * bare object, as it renders a kind keeping unknown fields). `served` names what reads it, e.g. "the token
 * subresource of serviceaccounts".
 */
function opaqueKindSchema(gvk: GroupVersionKind, served: string): JSONSchema {
  return {
    description: `${gvk.kind} is what ${served} reads and answers with.`,
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [{ group: gvk.group, version: gvk.version, kind: gvk.kind }],
  };
}

function watchRoutes(
  def: ResourceDefinition,
  c: { gvk: GroupVersionKind; gvId: string; tag: string; ns: string; root: string },
): RoutePath[] {
  const { kind, plural, namespaced } = def;
  const watch = (
    path: string,
    pathParams: ParameterSpec[],
    operationId: string,
    action: 'watch' | 'watchlist',
    description: string,
  ): RoutePath => ({
    path,
    parameters: [...pathParams, ...LIST_PARAMETERS, PRETTY].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    operations: [
      {
        method: 'get',
        operationId,
        tag: c.tag,
        description,
        action,
        gvk: c.gvk,
        parameters: [],
        produces: WATCH_CONTENT_TYPES,
        responses: [{ code: '200', description: 'OK', schema: WATCH_EVENT }, UNAUTHORIZED],
      },
    ],
  });
  const listDescription = `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`;
  const itemDescription = `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`;
  const name = namePath(kind);
  if (!namespaced) {
    return [
      watch(`${c.root}/watch/${plural}`, [], `watch${c.gvId}${kind}List`, 'watchlist', listDescription),
      watch(`${c.root}/watch/${plural}/{name}`, [name], `watch${c.gvId}${kind}`, 'watch', itemDescription),
    ];
  }
  return [
    watch(`${c.root}/watch/${plural}`, [], `watch${c.gvId}${kind}ListForAllNamespaces`, 'watchlist', listDescription),
    watch(
      `${c.root}/watch/namespaces/{namespace}/${plural}`,
      [NAMESPACE_PATH],
      `watch${c.gvId}Namespaced${kind}List`,
      'watchlist',
      listDescription,
    ),
    watch(
      `${c.root}/watch/namespaces/{namespace}/${plural}/{name}`,
      [name, NAMESPACE_PATH],
      `watch${c.gvId}Namespaced${kind}`,
      'watch',
      itemDescription,
    ),
  ];
}
