import { FakeClock, StatusError } from '@kapi/apimachinery';
import { Store, toOpenAPISchema, toTable } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterRoleResource } from './cluster-role.ts';
import type { ClusterRole } from './types.ts';

let memory: MemoryStorage;
let store: Store<ClusterRole>;
const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  store = new Store(ClusterRoleResource, { storage: memory, clock });
});
afterEach(() => memory.close());

const ctx = {};
const clusterRole = (name: string, body: object = {}) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name },
  ...body,
});

async function causes(p: Promise<unknown>): Promise<string[]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  expect((err as StatusError).code).toBe(422);
  return ((err as StatusError).status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

const selectors = (...clusterRoleSelectors: unknown[]) => ({ aggregationRule: { clusterRoleSelectors } });

describe('ClusterRole', () => {
  it('is cluster-scoped rbac.authorization.k8s.io/v1 without short names', () => {
    expect(ClusterRoleResource.groupResource).toEqual({ group: 'rbac.authorization.k8s.io', resource: 'clusterroles' });
    expect(ClusterRoleResource.namespaced).toBe(false);
    expect(ClusterRoleResource.shortNames).toEqual([]);
  });

  it('takes non-resource URLs and names with colons', async () => {
    const rules = [
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/version', '/api/*'] },
      { verbs: ['get'], apiGroups: [''], resources: ['nodes'] },
    ];
    const { object } = await store.create(ctx, clusterRole('system:public-info-viewer', { rules }));
    expect(object.rules).toEqual(rules);
    expect(object.metadata.generation).toBeUndefined();
    expect(await causes(store.create(ctx, clusterRole('a/b')))).toEqual([`metadata.name: Invalid value: "a/b": may not contain '/'`]);
  });

  it('refuses a rule for both resources and non-resource URLs', async () => {
    expect(
      await causes(
        store.create(
          ctx,
          clusterRole('x', { rules: [{ verbs: ['get'], resources: ['pods'], resourceNames: ['a'], nonResourceURLs: ['/x'] }] }),
        ),
      ),
    ).toEqual([
      `rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs`,
    ]);
  });

  it('stores an aggregation rule without rules', async () => {
    const agg = selectors({ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }, {});
    const { object } = await store.create(ctx, clusterRole('edit', agg));
    expect(object.aggregationRule).toEqual(agg.aggregationRule);
    expect(object.rules).toBeUndefined();
  });

  it('requires a selector in an aggregation rule', async () => {
    const msg =
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil';
    expect(await causes(store.create(ctx, clusterRole('x', { aggregationRule: {} })))).toEqual([msg]);
    expect(await causes(store.create(ctx, clusterRole('x', selectors())))).toEqual([msg]);
  });

  it("validates selectors as kube's ValidateLabelSelector, then as LabelSelectorAsSelector does", async () => {
    const bad = selectors(
      { matchLabels: { 'bad key': 'v', ok: 'bad value!' } },
      { matchExpressions: [{ key: 'k', operator: 'Near' }] },
      { matchExpressions: [{ key: 'k', operator: 'In' }] },
      { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['a'] }] },
      { matchExpressions: [{ key: '-k', operator: 'NotIn', values: ['ok', '-bad-'] }] },
    );
    const q = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    const invalidSelector = (i: number) => `aggregationRule.clusterRoleSelectors[${i}]: Invalid value: "null": invalid label selector.`;
    expect(await causes(store.create(ctx, clusterRole('x', bad)))).toEqual([
      `aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "bad key": name part ${q} (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "bad value!": a valid label must be an empty string or ${q.replace('must ', '')} (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      invalidSelector(0),
      'aggregationRule.clusterRoleSelectors[1].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      invalidSelector(1),
      "aggregationRule.clusterRoleSelectors[2].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      invalidSelector(2),
      "aggregationRule.clusterRoleSelectors[3].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      invalidSelector(3),
      `aggregationRule.clusterRoleSelectors[4].matchExpressions[0].key: Invalid value: "-k": name part ${q} (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `aggregationRule.clusterRoleSelectors[4].matchExpressions[0].values[1]: Invalid value: "-bad-": a valid label must be an empty string or ${q.replace('must ', '')} (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      invalidSelector(4),
    ]);
  });

  it('lets an update keep the bad label values its stored selectors had, as kube ratchets them (the selector still fails to build)', async () => {
    // Written behind the Store's back, as an object stored by an older server would be.
    const old = clusterRole('legacy', selectors({ matchExpressions: [{ key: 'k', operator: 'In', values: ['-bad-'] }] }));
    await memory.create(`${store.keys.resourcePrefix}/legacy`, { ...old, metadata: { name: 'legacy', uid: 'u1' } });
    const update = (values: string[]) =>
      store.update(ctx, 'legacy', clusterRole('legacy', selectors({ matchExpressions: [{ key: 'k', operator: 'In', values }] })));
    const invalidSelector = 'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.';
    // Only LabelSelectorAsSelector's complaint, once per validation kube runs.
    expect(await causes(update(['-worse-']))).toEqual([invalidSelector, invalidSelector]);
    // A fixed selector is fine.
    expect((await update(['good'])).object.aggregationRule?.clusterRoleSelectors?.[0]?.matchExpressions?.[0]?.values).toEqual(['good']);
    // Now that the stored one is valid, bad values are refused again, with their own errors.
    expect((await causes(update(['-bad-']))).filter((c) => c.includes('values[0]'))).toHaveLength(2);
  });

  it("prints kube's default table and publishes selectors as atomic", async () => {
    const { object } = await store.create(ctx, clusterRole('view'));
    const table = toTable(ClusterRoleResource, object, { clock });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Created At']);
    expect(table.rows[0]?.cells).toEqual(['view', '2026-03-01T10:00:00Z']);
    type Node = Record<string, unknown> & { properties: Record<string, Node>; items: Node };
    const props = toOpenAPISchema(ClusterRoleResource, 'v1').properties as Record<string, Node>;
    const selectorsSchema = props.aggregationRule?.properties.clusterRoleSelectors;
    expect(selectorsSchema?.['x-kubernetes-list-type']).toBe('atomic');
    expect(selectorsSchema?.items['x-kubernetes-map-type']).toBe('atomic');
    expect(props.rules?.['x-kubernetes-list-type']).toBe('atomic');
  });
});
