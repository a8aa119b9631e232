import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { isStorageError } from '@kapi/storage';
import { type EtcdServer, freePort, makeTestCA, startEtcd, type TestCertificate } from '@kapi/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStorage, type EtcdStorageOptions } from './etcd-storage.ts';

// Real etcd processes serving TLS with --client-cert-auth, the CAs and certificates made at run time:
// `etcd` with a serving certificate for 127.0.0.1 and localhost, `expired` with one whose validity has passed,
// `named` with one for the DNS name etcd.kapi.test only (no IP SAN), `otherIP` with one for 127.0.0.2 only (and
// localhost), all signed by one CA; and a plaintext etcd.
let etcd: EtcdServer;
let expired: EtcdServer;
let named: EtcdServer;
let otherIP: EtcdServer;
let plaintext: EtcdServer;
const open: EtcdStorage[] = [];

const HOUR = 3_600_000;

beforeAll(async () => {
  const ca = await makeTestCA('kapi-tls-test-ca');
  const past = { notBefore: new Date(Date.now() - 2 * HOUR), notAfter: new Date(Date.now() - HOUR) };
  [etcd, expired, named, otherIP, plaintext] = await Promise.all([
    startEtcd({ tls: { ca } }),
    startEtcd({ tls: { ca, serving: await ca.issue({ cn: 'expired-etcd', usage: 'server', ...past }) } }),
    startEtcd({ tls: { ca, serving: await ca.issue({ cn: 'named-etcd', usage: 'server', ips: [], dnsNames: ['etcd.kapi.test'] }) } }),
    startEtcd({ tls: { ca, serving: await ca.issue({ cn: 'other-ip-etcd', usage: 'server', ips: ['127.0.0.2'] }) } }),
    startEtcd(),
  ]);
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(async () => {
  await Promise.all([etcd, expired, named, otherIP, plaintext].map((e) => e?.stop()));
});

/** The CA and client certificate the test etcds accept. */
function good(server: EtcdServer = etcd): { ca: string; cert: string; key: string } {
  const tls = server.tls;
  if (!tls) throw new Error('startEtcd({ tls }) gave no TLS credentials');
  return { ca: tls.ca.pem, cert: tls.client.cert, key: tls.client.key };
}

/**
 * A store on `endpoints`. Its deadline is far beyond the test timeout: a TLS failure must fail the call when the
 * handshake fails, not when the deadline passes, or the test times out.
 */
function storage(endpoints: string[], tls: EtcdStorageOptions['tls'], more: Partial<EtcdStorageOptions> = {}): EtcdStorage {
  const prefix = `/kapi-tls-${randomBytes(6).toString('hex')}`;
  const s = new EtcdStorage({ endpoints, tls, prefix, requestTimeoutMs: 120_000, ...more });
  open.push(s);
  return s;
}

const widget = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name }, spec: { size: 1 } });

/** The call fails with Unreachable whose message names the member and matches `why`. */
async function expectTLSFailure(call: Promise<unknown>, endpoint: string, why: RegExp): Promise<void> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStorageError(err, 'Unreachable'), String(err)).toBe(true);
  const message = (err as Error).message;
  expect(message).toContain(`TLS handshake with etcd at ${endpoint} failed`);
  expect(message).toMatch(why);
  // Refused before anything was sent: not a write "that may or may not have been applied".
  expect(message).not.toMatch(/may or may not/);
}

/**
 * A watch on `s` ends with one ERROR: kube's 500 ServerTimeout (retry after 2 s), as for an etcd that is down, whose
 * message names the member and matches `why`. Both ways a watch starts: from a revision (straight onto the watch
 * stream, which gives up after watchReconnectTimeoutMs) and from now (a read first, which fails at once).
 */
async function expectWatchTLSFailure(s: EtcdStorage, endpoint: string, why: RegExp): Promise<void> {
  for (const resourceVersion of ['1', undefined]) {
    const events: WatchEvent[] = [];
    for await (const e of s.watch('/registry/widgets', { resourceVersion })) events.push(e);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', code: 500, reason: 'ServerTimeout', details: { retryAfterSeconds: 2 } },
    });
    const event = events[0];
    const message = event?.type === 'ERROR' ? event.object.message : undefined;
    expect(message).toContain(`TLS handshake with etcd at ${endpoint} failed`);
    expect(message).toMatch(why);
  }
}

/** Long enough for a handshake on loopback to fail first; the watch then ends with that handshake's error. */
const WATCH_GIVE_UP = { watchReconnectTimeoutMs: 1000 };

describe('EtcdStorage over TLS', () => {
  it('verifies an IP SAN (https://127.0.0.1) and a DNS name (https://localhost) and presents the client certificate', async () => {
    const byIP = storage([etcd.endpoint], good());
    const created = await byIP.create('/registry/widgets/a', widget('a'));
    const byName = storage([etcd.endpoint.replace('127.0.0.1', 'localhost')], good());
    expect(await byName.get('/registry/widgets/a', { ignoreNotFound: true })).toBeNull(); // another prefix
    await byName.create('/registry/widgets/b', widget('b'));
    expect((await byName.get('/registry/widgets/b'))?.metadata.name).toBe('b');
    expect((await byIP.get('/registry/widgets/a'))?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('fails over between https:// members: a member that is down is skipped', async () => {
    const down = `https://127.0.0.1:${await freePort()}`;
    const s = storage([down, etcd.endpoint], good());
    await s.create('/registry/widgets/a', widget('a'));
    expect((await s.get('/registry/widgets/a'))?.metadata.name).toBe('a');
  });

  it("a CA that did not sign etcd's certificate: reads and writes fail at once with Unreachable saying so", async () => {
    const other = await makeTestCA('another-ca');
    const s = storage([etcd.endpoint], { ...good(), ca: other.pem }, WATCH_GIVE_UP);
    const why =
      /\(unable to verify the first certificate\): etcd's serving certificate is not signed by a CA in tls\.ca \(kube-apiserver's --etcd-cafile\)/;
    await expectTLSFailure(s.get('/registry/widgets/a'), etcd.endpoint, why);
    await expectTLSFailure(s.create('/registry/widgets/a', widget('a')), etcd.endpoint, why);
    await expectWatchTLSFailure(s, etcd.endpoint, why);
  });

  it('no client certificate where etcd demands one: Unreachable saying etcd refused it', async () => {
    const s = storage([etcd.endpoint], { ca: good().ca }, WATCH_GIVE_UP);
    const why = /\(ssl\/tls alert [a-z ]+\): etcd refused the client certificate/;
    await expectTLSFailure(s.list('/registry/widgets'), etcd.endpoint, why);
    await expectWatchTLSFailure(s, etcd.endpoint, why);
  });

  it('a client certificate etcd does not accept (expired, or from another CA): Unreachable saying etcd refused it', async () => {
    const ca = etcd.tls?.ca;
    if (!ca) throw new Error('no CA');
    const old: TestCertificate = await ca.issue({
      cn: 'old-client',
      usage: 'client',
      notBefore: new Date(Date.now() - 2 * HOUR),
      notAfter: new Date(Date.now() - HOUR),
    });
    const stranger = await (await makeTestCA('another-ca')).issue({ cn: 'stranger', usage: 'client' });
    for (const client of [old, stranger]) {
      const s = storage([etcd.endpoint], { ...good(), ...client }, WATCH_GIVE_UP);
      await expectTLSFailure(s.get('/registry/widgets/a'), etcd.endpoint, /etcd refused the client certificate/);
      await expectWatchTLSFailure(s, etcd.endpoint, /etcd refused the client certificate/);
    }
  });

  it("an expired serving certificate, or one for another name: Unreachable saying what is wrong with etcd's certificate", async () => {
    const outdated = storage([expired.endpoint], good(expired), WATCH_GIVE_UP);
    const why = /\(certificate has expired\): etcd's serving certificate is outside its validity period/;
    await expectTLSFailure(outdated.get('/registry/widgets/a'), expired.endpoint, why);
    await expectWatchTLSFailure(outdated, expired.endpoint, why);
    await expectTLSFailure(
      storage([named.endpoint], good(named)).get('/registry/widgets/a'),
      named.endpoint,
      /Hostname\/IP does not match.*: etcd's serving certificate does not name the endpoint's host/,
    );
  });

  it('an IP endpoint is verified against IP SANs only: a certificate for another IP is refused, its DNS name accepted', async () => {
    await expectTLSFailure(
      storage([otherIP.endpoint], good(otherIP)).get('/registry/widgets/a'),
      otherIP.endpoint,
      /Hostname\/IP does not match certificate's altnames: IP: 127\.0\.0\.1 is not in the cert's list: 127\.0\.0\.2\): etcd's serving certificate does not name the endpoint's host/,
    );
    const byName = storage([otherIP.endpoint.replace('127.0.0.1', 'localhost')], good(otherIP));
    await byName.create('/registry/widgets/a', widget('a'));
  });

  it('connecting to an IP address over TLS prints no DEP0123 warning (no IP address is sent as the TLS server name)', async () => {
    // A process of its own: Node prints the warning once per process, so another test here may already have caused it.
    const script = `
      import { EtcdStorage } from ${JSON.stringify(new URL('./etcd-storage.ts', import.meta.url).href)};
      const s = new EtcdStorage({ endpoints: [process.env.ENDPOINT], tls: JSON.parse(process.env.TLS), prefix: process.env.PREFIX });
      const created = await s.create('/registry/widgets/a', { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'a' } });
      for await (const e of s.watch('/registry/widgets', { resourceVersion: '0' })) { console.log(e.type, e.object.metadata.name); break; }
      await s.close();
      console.log('created', created.metadata.name);
    `;
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@kapi/source', '--input-type=module', '--eval', script],
      {
        env: {
          ...process.env,
          ENDPOINT: etcd.endpoint,
          TLS: JSON.stringify(good()),
          PREFIX: `/kapi-tls-${randomBytes(6).toString('hex')}`,
        },
        timeout: 30_000,
      },
    );
    expect(etcd.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:/);
    expect(stdout).toBe('ADDED a\ncreated a\n');
    expect(stderr).not.toContain('DEP0123');
    expect(stderr).not.toMatch(/Warning/);
  });

  it('an https:// client on a plaintext etcd: Unreachable asking whether the member serves TLS', async () => {
    const endpoint = plaintext.endpoint.replace('http:', 'https:');
    const s = storage([endpoint], good(), WATCH_GIVE_UP);
    await expectTLSFailure(s.get('/registry/widgets/a'), endpoint, /is it serving TLS\?/);
    await expectWatchTLSFailure(s, endpoint, /is it serving TLS\?/);
  });

  it('a plaintext http:// client on a TLS etcd fails with Unreachable, not a hang', async () => {
    const s = storage([etcd.endpoint.replace('https:', 'http:')], undefined);
    const err = await s.get('/registry/widgets/a').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStorageError(err, 'Unreachable'), String(err)).toBe(true);
  });
});
