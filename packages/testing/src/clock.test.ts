import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from './start-test-server.ts';
import { useTestServer } from './use-test-server.ts';

// What the test server's FakeClock drives, kind by kind (watch timeouts: start-test-server.test.ts; conversion
// webhooks' timeouts: @kapi/apiextensions' webhook-converter.test.ts).

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

/** A fresh server per test. */
const s = useTestServer({ beforeEach, afterEach });

async function send(s: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** metav1.Time of the clock's now (seconds). */
const timeOf = (s: TestServer) => new Date(s.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');

/** Reads a watch stream's events one at a time (`next.stop()` closes it). */
function events(res: Response): (() => Promise<Json>) & { stop(): Promise<void> } {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const next = async () => {
    while (!buffered.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the watch ended');
      buffered += decoder.decode(value, { stream: true });
    }
    const i = buffered.indexOf('\n');
    const line = buffered.slice(0, i);
    buffered = buffered.slice(i + 1);
    return JSON.parse(line);
  };
  return Object.assign(next, { stop: () => reader.cancel() });
}

describe('the FakeClock', () => {
  it('sends a watch that allows bookmarks a BOOKMARK about a minute later (kube: every minute, jittered by up to 1 s)', async () => {
    const cm = await send(s, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } });
    const rv = cm.body.metadata.resourceVersion;
    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`);
    const next = events(res);
    s.clock.advance(61_000);
    expect(await next()).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: rv } },
    });
    // The next one, a minute after, only when the revision moved (kube sends none twice at one revision).
    const b = await send(s, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'b' } });
    expect(await next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });
    s.clock.advance(61_000);
    expect(await next()).toMatchObject({ type: 'BOOKMARK', object: { metadata: { resourceVersion: b.body.metadata.resourceVersion } } });
    await next.stop();
  });

  it('stamps deletion: gracePeriodSeconds does not delay a kind without graceful deletion, as in kube (only Pods have it)', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    await send(s, 'POST', path, { metadata: { name: 'a' } });
    const gone = await send(s, 'DELETE', `${path}/a`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 30 });
    expect(gone.status).toBe(200);
    expect((await send(s, 'GET', `${path}/a`)).status).toBe(404);
    // Kept by a finalizer: deletionTimestamp is the clock's now and the grace period 0 (kube's markAsDeleting).
    await send(s, 'POST', path, { metadata: { name: 'kept', finalizers: ['example.com/hold'] } });
    s.clock.advance(90_000);
    const kept = await send(s, 'DELETE', `${path}/kept`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 30 });
    expect(kept.status).toBe(200);
    expect(kept.body.metadata).toMatchObject({ deletionTimestamp: timeOf(s), deletionGracePeriodSeconds: 0 });
  });

  it('leaves Leases alone however far it moves: their expiry is the clients’ to judge (renewTime + leaseDurationSeconds)', async () => {
    const path = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const renewTime = new Date(s.clock.now()).toISOString().replace('Z', '000Z');
    const lease = await send(s, 'POST', path, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime },
    });
    expect(lease.status).toBe(201);
    expect(lease.body.metadata.creationTimestamp).toBe(timeOf(s));
    s.clock.advance(3_600_000);
    const later = await send(s, 'GET', `${path}/leader`);
    expect(later.body.spec).toEqual(lease.body.spec);
    expect(later.body.metadata.resourceVersion).toBe(lease.body.metadata.resourceVersion);
  });
});
