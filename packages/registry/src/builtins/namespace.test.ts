import { FakeClock, type StatusError } from '@kapi/apimachinery';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreKeys } from '../store/store-keys.ts';
import { backends } from '../test-support/backends.ts';
import { Namespace } from './namespace.ts';
import { NamespaceRegistry } from './namespace-registry.ts';

describe.each(backends)('over %s', (_label, wrap) => {
  let memory: MemoryStorage;
  let close: () => Promise<void>;
  let clock: FakeClock;
  let registry: NamespaceRegistry;
  beforeEach(async () => {
    memory = new MemoryStorage({ compaction: false });
    const backend = await wrap(memory, new StoreKeys(Namespace).resourcePrefix);
    close = backend.close;
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    registry = new NamespaceRegistry({ storage: backend.storage, clock });
  });
  afterEach(async () => {
    await close();
    await memory.close();
  });

  const ns = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...extra });
  const fail = (p: Promise<unknown>) =>
    p.then(
      () => expect.unreachable('expected an error'),
      (e: unknown) => e as StatusError,
    );

  describe('Namespace', () => {
    it('is created Active with the kubernetes finalizer and its name label', async () => {
      const { object } = await registry.store.create({}, ns('team-a'));
      expect(object.spec).toEqual({ finalizers: ['kubernetes'] });
      expect(object.status).toEqual({ phase: 'Active' });
      expect(object.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
      expect(object.metadata.namespace).toBeUndefined();
      const other = await registry.store.create({}, ns('b', { spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } }));
      expect(other.object.spec?.finalizers).toEqual(['example.com/x', 'kubernetes']);
      expect(other.object.status?.phase).toBe('Active');
    });

    it('wants a DNS label as name and qualified finalizer names', async () => {
      const dotted = await fail(registry.store.create({}, ns('a.b')));
      // apimachinery's IsDNS1123Label words a valid subdomain that is no label this way.
      expect(dotted.message).toBe('Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
      const bare = await fail(registry.store.create({}, ns('a', { spec: { finalizers: ['mine'] } })));
      expect(bare.message).toBe(
        'Namespace "a" is invalid: spec.finalizers: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified',
      );
    });

    it('refuses a spec or spec.finalizers of the wrong type instead of storing defaults for it', async () => {
      for (const [spec, field] of [
        ['x', 'spec'],
        [['kubernetes'], 'spec'],
        [{ finalizers: 'kubernetes' }, 'spec.finalizers'],
      ] as const) {
        const err = await fail(registry.store.create({}, ns('typed', { spec })));
        expect(err.code).toBe(422);
        expect(err.status.details?.causes?.map((c) => c.field)).toContain(field);
      }
      await expect(registry.store.get({}, 'typed')).rejects.toMatchObject({ code: 404 });
      // null is no spec at all, as JSON decoding leaves it.
      expect((await registry.store.create({}, ns('nulled', { spec: null }))).object.spec).toEqual({ finalizers: ['kubernetes'] });
    });

    it('keeps spec.finalizers and status on update; the status subresource checks the phase', async () => {
      await registry.store.create({}, ns('a'));
      const { object } = await registry.store.update({}, 'a', ns('a', { spec: { finalizers: [] }, status: { phase: 'Terminating' } }));
      expect(object.spec?.finalizers).toEqual(['kubernetes']);
      expect(object.status?.phase).toBe('Active');
      const err = await fail(registry.store.update({}, 'a', ns('a', { status: { phase: 'Terminating' } }), { subresource: 'status' }));
      expect(err.message).toBe(
        'Namespace "a" is invalid: status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
      );
    });

    it('keeps status conditions written through the status subresource, one per type', async () => {
      await registry.store.create({}, ns('a'));
      const condition = {
        type: 'NamespaceDeletionDiscoveryFailure',
        status: 'True',
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: 'DiscoveryFailed',
        message: 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs',
      };
      const { object } = await registry.store.update(
        {},
        'a',
        ns('a', { status: { phase: 'Active', conditions: [{ ...condition, extra: 'pruned' }] } }),
        { subresource: 'status' },
      );
      expect(object.status?.conditions).toEqual([condition]);
      // Conditions merge by type in a strategic merge patch.
      const patched = await registry.store.patch(
        {},
        'a',
        { status: { conditions: [{ type: 'NamespaceContentRemaining', status: 'False' }] } },
        'strategic',
        { subresource: 'status' },
      );
      expect(patched.object.status?.conditions?.map((c) => c.type).sort()).toEqual([
        'NamespaceContentRemaining',
        'NamespaceDeletionDiscoveryFailure',
      ]);
      const err = await fail(
        registry.store.update({}, 'a', ns('a', { status: { phase: 'Active', conditions: [condition, condition] } }), {
          subresource: 'status',
        }),
      );
      expect(err.message).toBe(
        'Namespace "a" is invalid: status.conditions[1]: Duplicate value: map[string]interface {}{"type":"NamespaceDeletionDiscoveryFailure"}',
      );
      // A lastTransitionTime Go could not decode is a 400, as kube's decoder answers, and nothing is stored.
      const garbage = await fail(
        registry.store.patch({}, 'a', { status: { conditions: [{ type: 'X', status: 'True', lastTransitionTime: 'garbage' }] } }, 'merge', {
          subresource: 'status',
        }),
      );
      expect(garbage.code).toBe(400);
      expect(garbage.message).toBe(
        'Namespace in version "v1" cannot be handled as a Namespace: parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
      );
      expect((await registry.store.get({}, 'a')).status?.conditions?.map((c) => c.type)).not.toContain('X');
    });

    it('delete marks it Terminating and keeps it while spec.finalizers is not empty', async () => {
      await registry.store.create({}, ns('a'));
      clock.advance(5000);
      const first = await registry.delete('a');
      expect(first.deleted).toBe(false);
      expect(first.object.status?.phase).toBe('Terminating');
      expect(first.object.metadata.deletionTimestamp).toBe('2026-01-01T00:00:05Z');
      clock.advance(5000);
      const again = await registry.delete('a');
      expect(again.deleted).toBe(false);
      expect(again.object.metadata.deletionTimestamp).toBe('2026-01-01T00:00:05Z');
      // Neither a label change nor a status write removes it.
      const labelled = await registry.store.patch({}, 'a', { metadata: { labels: { x: 'y' } } }, 'merge');
      expect(labelled.deleted).toBe(false);
      expect((await registry.store.get({}, 'a')).status?.phase).toBe('Terminating');
    });

    it('finalize that empties spec.finalizers removes a terminating namespace', async () => {
      await registry.store.create({}, ns('a'));
      const kept = await registry.finalize('a', ns('a', { spec: { finalizers: [] } }));
      // Not terminating: finalize only edits the list.
      expect(kept.deleted).toBe(false);
      expect(kept.object.spec?.finalizers).toEqual([]);
      await registry.delete('a');
      expect((await registry.store.get({}, 'a')).status?.phase).toBe('Terminating');
      // With no finalizer left, the second delete removes it.
      const gone = await registry.delete('a');
      expect(gone.deleted).toBe(true);
      expect((await fail(registry.store.get({}, 'a'))).code).toBe(404);

      await registry.store.create({}, ns('b'));
      await registry.delete('b');
      const res = await registry.finalize('b', ns('b', { spec: { finalizers: [] } }));
      expect(res.deleted).toBe(true);
      expect((await fail(registry.store.get({}, 'b'))).code).toBe(404);
    });

    it('refuses to delete default, kube-system and kube-public as NamespaceLifecycle admission does', async () => {
      for (const name of ['default', 'kube-system', 'kube-public']) {
        await registry.store.create({}, ns(name));
        const err = await fail(registry.delete(name));
        expect(err.code).toBe(403);
        expect(err.status.reason).toBe('Forbidden');
        expect(err.message).toBe(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
        expect(err.status.details).toEqual({ name, kind: 'namespaces' });
        expect((await fail(registry.delete(name, { dryRun: true }))).code).toBe(403);
        expect((await registry.store.get({}, name)).status?.phase).toBe('Active');
      }
      // Admission refuses before the namespace is looked up.
      await registry.store.delete({}, 'kube-public');
      expect((await fail(registry.delete('kube-public'))).code).toBe(403);
      // Others go as usual.
      await registry.store.create({}, ns('kube-node-lease'));
      expect((await registry.delete('kube-node-lease')).object.status?.phase).toBe('Terminating');
    });

    it('delete checks preconditions in the namespace REST words, and dryRun writes nothing', async () => {
      const { object } = await registry.store.create({}, ns('a'));
      const err = await fail(registry.delete('a', { preconditions: { uid: 'nope' } }));
      expect(err.code).toBe(409);
      expect(err.message).toBe(
        `Operation cannot be fulfilled on namespaces "a": Precondition failed: UID in precondition: nope, UID in object meta: ${object.metadata.uid}`,
      );
      const dry = await registry.delete('a', { dryRun: true });
      expect(dry.object.status?.phase).toBe('Terminating');
      expect((await registry.store.get({}, 'a')).status?.phase).toBe('Active');
      expect((await fail(registry.delete('missing'))).message).toBe('namespaces "missing" not found');
    });
  });
});
