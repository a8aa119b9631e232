import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect as connectHTTP2 } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from './control-plane.ts';

/**
 * Bad input over HTTP against the example control plane (in process, memory backend, plain HTTP/1.1): random bytes
 * and wrong JSON shapes as bodies of every write verb and patch type, YAML alias bombs, deep nesting, oversized
 * bodies, malformed paths and query parameters, and a hundred half-sent requests held open. Every answer must be a
 * success or a 4xx Status (JSON, kind Status, its code the HTTP status): never a 5xx, never a dropped connection.
 * Random parts use fast-check with a fixed seed and bounded runs; a failure prints the seed and path to replay with.
 */
const PARAMS = { seed: 10_108, numRuns: 40, endOnFailure: true } as const;

let plane: ControlPlane;
let dataDir: string;
let base: URL;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'kapi-bad-input-'));
  plane = await startControlPlane({ port: 0, dataDir, insecureHTTP: true, storage: 'memory' });
  base = new URL(plane.url);
});
// Cases may delete "cm" (a random DELETE of the collection); each test starts with it in place.
beforeEach(async () => {
  const created = await send(
    'POST',
    CMS,
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } }),
  );
  expect([201, 409]).toContain(created.status);
});
afterAll(async () => {
  agent.destroy();
  await plane?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const CMS = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/example.kapi.dev/v1/namespaces/default/widgets';

interface Reply {
  status: number;
  contentType: string;
  text: string;
}

/**
 * One request as written (node:http sends the path unnormalised). A watch that is accepted is cut after its headers.
 * Rejects when the connection drops before a whole response arrived.
 */
function send(method: string, path: string, body?: string | Uint8Array, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path,
        headers: {
          authorization: `Bearer ${plane.token}`,
          // node sends a DELETE body without framing unless told its length (the server would take it for the next request).
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(body !== undefined && !headers['transfer-encoding'] ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
          ...headers,
        },
      },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        const status = res.statusCode ?? 0;
        // A watch streams without a length until it times out: enough to have its headers.
        if (status === 200 && res.headers['content-length'] === undefined && /watch/i.test(path)) {
          res.destroy();
          resolve({ status, contentType, text: '' });
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status, contentType, text }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => reject(new Error(`${method} ${path.slice(0, 200)}: connection failed: ${err.message}`)));
    // Every request here is answered at once; one that is not is a hang worth a clear failure.
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.end(body);
  });
}

/** Success, or a 4xx answered with a Status whose code is the HTTP status. */
function expectSuccessOrStatus(reply: Reply, what: string): void {
  expect(reply.status, `${what}: ${reply.text.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
  expect(reply.status, `${what}: ${reply.text.slice(0, 300)}`).toBeLessThan(500);
  if (reply.status < 400) return;
  expect(reply.contentType, what).toMatch(/^application\/json/);
  const status = JSON.parse(reply.text) as { kind?: string; code?: number; status?: string };
  expect(status, what).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: reply.status });
}

async function expectAnswered(method: string, path: string, body?: string | Uint8Array, headers?: Record<string, string>): Promise<Reply> {
  const reply = await send(method, path, body, headers);
  expectSuccessOrStatus(reply, `${method} ${path.slice(0, 200)}`);
  return reply;
}

function parsesAsJSON(bytes: Uint8Array): boolean {
  try {
    JSON.parse(Buffer.from(bytes).toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** The stored ConfigMap "cm", as bytes: refused writes must leave it as it was. */
async function storedCM(): Promise<string> {
  const got = await send('GET', `${CMS}/cm`);
  expect(got.status).toBe(200);
  return got.text;
}

// ------------------------------------------------------------------------------------------------ bodies

/** Each write a body can go to, with the content types it is sent as. */
const WRITES: ReadonlyArray<{ method: string; path: string; contentType: string }> = [
  { method: 'POST', path: CMS, contentType: 'application/json' },
  { method: 'POST', path: CMS, contentType: 'application/yaml' },
  { method: 'POST', path: WIDGETS, contentType: 'application/json' },
  { method: 'POST', path: CMS, contentType: 'application/vnd.kubernetes.protobuf' },
  { method: 'PUT', path: `${CMS}/cm`, contentType: 'application/json' },
  { method: 'PUT', path: `${CMS}/cm`, contentType: 'application/yaml' },
  { method: 'PATCH', path: `${CMS}/cm`, contentType: 'application/json-patch+json' },
  { method: 'PATCH', path: `${CMS}/cm`, contentType: 'application/merge-patch+json' },
  { method: 'PATCH', path: `${CMS}/cm`, contentType: 'application/strategic-merge-patch+json' },
  { method: 'PATCH', path: `${CMS}/cm`, contentType: 'application/apply-patch+yaml' },
  { method: 'PATCH', path: `${CMS}/cm?fieldManager=t`, contentType: 'application/apply-patch+yaml' },
  { method: 'DELETE', path: `${CMS}/nope`, contentType: 'application/json' },
];
const write = fc.constantFrom(...WRITES);

/** JSON of the wrong shape: any value, and ConfigMap-like objects with wrong types in their fields. */
const wrongShape = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    {
      apiVersion: fc.oneof(fc.constant('v1'), fc.jsonValue({ maxDepth: 1 })),
      kind: fc.oneof(fc.constantFrom('ConfigMap', 'Secret', 'Widget', 'Status', ''), fc.jsonValue({ maxDepth: 1 })),
      metadata: fc.oneof(
        fc.record({
          name: fc.oneof(fc.constantFrom('cm', '..', '.', 'a/b', ''), fc.jsonValue({ maxDepth: 1 })),
          labels: fc.jsonValue({ maxDepth: 2 }),
          resourceVersion: fc.oneof(fc.constantFrom('-1', 'abc', '0', '99999999999999999999'), fc.jsonValue({ maxDepth: 1 })),
        }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      data: fc.jsonValue({ maxDepth: 3 }),
      spec: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: [] },
  ),
  // JSON patches: arrays of operations with wrong ops, paths and values.
  fc.array(
    fc.record({
      op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'nope'), fc.jsonValue({ maxDepth: 1 })),
      path: fc.oneof(fc.constantFrom('', '/', '/data/a', '/metadata/name', '/data/~2', '/a/-/b', '/data/__proto__'), fc.string()),
      from: fc.oneof(fc.constantFrom('/data', '/metadata'), fc.string()),
      value: fc.jsonValue({ maxDepth: 2 }),
    }),
    { maxLength: 4 },
  ),
);

describe('request bodies', () => {
  it('random bytes to every write and patch type: success or a 4xx Status; a refusal leaves the object unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(write, fc.uint8Array({ maxLength: 512 }), async (w, bytes) => {
        const toCM = w.path.startsWith(`${CMS}/cm`);
        const before = toCM ? await storedCM() : '';
        const reply = await expectAnswered(w.method, w.path, bytes, { 'content-type': w.contentType });
        if (!toCM) return;
        // Bytes that are not JSON never make a JSON write (YAML takes almost anything: "a:" is a map).
        if (!w.contentType.includes('yaml') && !parsesAsJSON(bytes)) expect(reply.status).toBeGreaterThanOrEqual(400);
        if (reply.status >= 400) expect(await storedCM()).toBe(before);
      }),
      PARAMS,
    );
  });

  it('JSON of the wrong shape to every write and patch type: success or a 4xx Status', async () => {
    await fc.assert(
      fc.asyncProperty(write, wrongShape, async (w, value) => {
        await expectAnswered(w.method, w.path, JSON.stringify(value), { 'content-type': w.contentType });
      }),
      { ...PARAMS, numRuns: 150 },
    );
  });

  it('a YAML alias bomb (billion laughs) is refused with a 400', async () => {
    // Nine levels of nine aliases each: 9^9 strings once expanded.
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const name = String.fromCharCode(97 + i);
      const prev = String.fromCharCode(96 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const bomb = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n${levels.join('\n')}\ndata:\n  k: *i\n`;
    for (const [method, path, contentType] of [
      ['POST', CMS, 'application/yaml'],
      ['PUT', `${CMS}/bomb`, 'application/yaml'],
      ['PATCH', `${CMS}/cm?fieldManager=t`, 'application/apply-patch+yaml'],
    ] as const) {
      const reply = await expectAnswered(method, path, bomb, { 'content-type': contentType });
      expect(reply.status, reply.text).toBe(400);
    }
  });

  it('JSON nested 50,000 levels deep is refused with a 400', async () => {
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","annotations":${'{"a":'.repeat(50_000)}"x"${'}'.repeat(50_000)}}}`;
    for (const [method, path, contentType] of [
      ['POST', CMS, 'application/json'],
      ['PUT', `${CMS}/deep`, 'application/json'],
      ['PATCH', `${CMS}/cm`, 'application/merge-patch+json'],
      ['PATCH', `${CMS}/cm`, 'application/strategic-merge-patch+json'],
    ] as const) {
      const reply = await expectAnswered(method, path, deep, { 'content-type': contentType });
      expect(reply.status, `${method} ${path}: ${reply.text.slice(0, 200)}`).toBe(400);
    }
    // YAML: flow and block nesting, as a body and as an apply patch.
    const flow = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  annotations: ${'{a: '.repeat(50_000)}x${'}'.repeat(50_000)}\n`;
    // Block nesting costs one more space per level: 2,400 levels are all that fit in 3 MiB.
    const block = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n${Array.from({ length: 2_400 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n')}x\n`;
    for (const yaml of [flow, block])
      for (const [method, path, contentType] of [
        ['POST', CMS, 'application/yaml'],
        ['PATCH', `${CMS}/cm?fieldManager=t`, 'application/apply-patch+yaml'],
      ] as const) {
        const reply = await expectAnswered(method, path, yaml, { 'content-type': contentType });
        expect(reply.status, `${method} ${path}: ${reply.text.slice(0, 200)}`).toBe(400);
      }
    const list = `[${'['.repeat(50_000)}${']'.repeat(50_000)}]`;
    expect((await expectAnswered('PATCH', `${CMS}/cm`, list, { 'content-type': 'application/json-patch+json' })).status).toBe(400);
  });

  it('an oversized body is a 413 Status, declared or chunked', async () => {
    const big = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { a: 'x'.repeat(4 * 1024 * 1024) },
    });
    const declared = await expectAnswered('POST', CMS, big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text).reason).toBe('RequestEntityTooLarge');
    const chunked = await expectAnswered('PUT', `${CMS}/big`, big, { 'transfer-encoding': 'chunked' });
    expect(chunked.status).toBe(413);
  });
});

// ------------------------------------------------------------------------------------------------ paths & queries

const SEGMENTS = [
  '',
  '.',
  '..',
  '%2e%2e',
  '%2E',
  '%zz',
  '%',
  '%2F',
  '%00',
  '%ff%fe',
  '%C3%BC',
  '%E6%97%A5%E6%9C%AC',
  '%F0%9F%98%80',
  'a'.repeat(300),
  'b'.repeat(5_000),
  // Past node's header size limit: a 431 Status.
  'c'.repeat(20_000),
  '~',
  ';x=1',
  // Not "cm": other cases check that object stays as it is, and a random DELETE would remove it.
  'other',
  'default',
  'namespaces',
  'configmaps',
  'status',
  'scale',
  'finalize',
  'watch',
  'proxy',
  'v1',
  'api',
  'apis',
];
/** Every UTF-8 byte percent-encoded (a lone surrogate becomes U+FFFD, which encodeURIComponent would throw on). */
const percentEncoded = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SEGMENTS) },
  fc.string({ maxLength: 12 }).map(percentEncoded),
  fc.string({ unit: 'binary', maxLength: 6 }).map(percentEncoded),
);
const PREFIXES = ['/api/v1/', '/api/v1/namespaces/', `${CMS}/`, '/apis/example.kapi.dev/v1/', `${WIDGETS}/`, '/', '//', '/apis/'];
const path = fc.tuple(fc.constantFrom(...PREFIXES), fc.array(segment, { maxLength: 4 })).map(([prefix, segs]) => prefix + segs.join('/'));
const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');

/** Garbage for the query parameters lists and watches read. */
const GARBAGE = [
  '',
  '-1',
  'abc',
  '0x10',
  '1e3',
  '99999999999999999999',
  '!',
  '=',
  '==',
  'a!=',
  'in (',
  ',',
  '%zz',
  'maybe',
  'a=b,c',
  '\u0000',
];
const garbage = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...GARBAGE) },
  fc.string({ maxLength: 16 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const PARAMETERS = [
  'labelSelector',
  'fieldSelector',
  'limit',
  'continue',
  'resourceVersion',
  'resourceVersionMatch',
  'timeoutSeconds',
  'watch',
  'allowWatchBookmarks',
  'sendInitialEvents',
  'dryRun',
  'fieldValidation',
  'fieldManager',
  'propagationPolicy',
  'gracePeriodSeconds',
  'orphanDependents',
  'pretty',
];
const query = fc
  .array(fc.tuple(fc.constantFrom(...PARAMETERS), garbage), { minLength: 1, maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${percentEncoded(v)}`).join('&'));

describe('paths and query parameters', () => {
  it('malformed paths ("//", "%zz", "..", long names, unicode) for every method: success or a 4xx Status', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, async (m, p) => {
        const body = m === 'POST' || m === 'PUT' || m === 'PATCH' ? '{}' : undefined;
        const headers: Record<string, string> = m === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {};
        const reply = await send(m, p, body, headers);
        // HEAD answers carry no body to check.
        if (m === 'HEAD') expect(reply.status).toBeLessThan(500);
        else expectSuccessOrStatus(reply, `${m} ${p.slice(0, 200)}`);
      }),
      { ...PARAMS, numRuns: 300 },
    );
  });

  it('garbage in list, watch and delete parameters: success or a 4xx Status', async () => {
    const target = fc.constantFrom(
      ['GET', CMS],
      ['GET', '/api/v1/configmaps'],
      ['GET', `/api/v1/watch/namespaces/default/configmaps`],
      ['GET', `${WIDGETS}`],
      ['GET', `${CMS}/cm`],
      ['DELETE', `${CMS}/nope`],
      ['DELETE', `${CMS}`],
      ['POST', `${CMS}`],
    );
    await fc.assert(
      fc.asyncProperty(target, query, async ([m, p], q) => {
        const body = m === 'POST' ? JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'q-' } }) : undefined;
        // An accepted deletecollection would empty the namespace for the other cases: keep it a dry run.
        const dry = m === 'DELETE' && p === CMS ? '&dryRun=All' : '';
        await expectAnswered(m, `${p}?${q}${dry}`, body);
      }),
      { ...PARAMS, numRuns: 200 },
    );
    expect((await send('GET', `${CMS}/cm`)).status).toBe(200);
  });

  it('requests node cannot parse, raw bytes in the path: a 4xx Status', async () => {
    const raw = (request: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(base.port), base.hostname, () => socket.end(Buffer.from(request, 'utf8')));
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (d: string) => {
          text += d;
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
      });
    const auth = `Authorization: Bearer ${plane.token}\r\nHost: x\r\nConnection: close\r\n`;
    for (const request of [
      `GET ${CMS}/${'d'.repeat(20_000)} HTTP/1.1\r\n${auth}\r\n`,
      `GET ${CMS}/ünï/çødé HTTP/1.1\r\n${auth}\r\n`,
      `GET /api/v1/namespaces/日本/configmaps HTTP/1.1\r\n${auth}\r\n`,
      `GET ${CMS}/a b HTTP/1.1\r\n${auth}\r\n`,
      `GET ${CMS} HTTP/1.1\r\n${auth}no colon\r\n\r\n`,
      `POST ${CMS} HTTP/1.1\r\n${auth}Content-Length: -5\r\n\r\n`,
      `POST ${CMS} HTTP/1.1\r\n${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
      // node hands CONNECT to the server's 'connect' event, not to the request handler.
      `CONNECT ${CMS} HTTP/1.1\r\n${auth}\r\n`,
      `CONNECT 127.0.0.1:443 HTTP/1.1\r\n${auth}\r\n`,
    ]) {
      const text = await raw(request);
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const code = Number(head.split(' ')[1]);
      expect(code, `${request.slice(0, 80)}: ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
      expect(code, `${request.slice(0, 80)}: ${text.slice(0, 300)}`).toBeLessThan(500);
      if (code >= 400) expect(JSON.parse(body), request.slice(0, 80)).toMatchObject({ kind: 'Status', code });
    }
  });

  it('a lone surrogate escaped in a body is U+FFFD, as Go decodes it, so the object can be read and deleted by name', async () => {
    const roles = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    // A ClusterRole's name is any path segment: "lone-\ud800" kept as it is would be a name no URL can reach.
    const json = '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"lone-\\ud800"},"rules":[]}';
    const yaml = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: "lone-\\ud800"}\nrules: []\n';
    for (const [method, path, contentType, body] of [
      ['POST', roles, 'application/json', json],
      ['POST', roles, 'application/yaml', json],
      ['POST', roles, 'application/yaml', yaml],
      ['PATCH', `${roles}/lone-%EF%BF%BD?fieldManager=t`, 'application/apply-patch+yaml', yaml],
    ] as const) {
      const created = await send(method, path, body, { 'content-type': contentType });
      expect(created.status, `${contentType}: ${created.text.slice(0, 300)}`).toBeLessThan(300);
      expect(JSON.parse(created.text).metadata.name).toBe('lone-\ufffd');
      expect((await send('GET', `${roles}/lone-%EF%BF%BD`)).status).toBe(200);
      expect((await send('DELETE', `${roles}/lone-%EF%BF%BD`)).status).toBe(200);
    }
  });

  it("a number Go's decoder cannot hold (1e400, YAML's .inf) is a 400, never stored as null", async () => {
    const cm = (extra: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"inf"${extra}}}`;
    const refused = [
      ['POST', CMS, 'application/json', cm(',"generation":1e400')],
      ['POST', CMS, 'application/yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inf, generation: .inf}\n'],
    ] as const;
    for (const [method, path, contentType, body] of refused) {
      const res = await send(method, path, body, { 'content-type': contentType });
      expect(res.status, `${contentType}: ${res.text.slice(0, 300)}`).toBe(400);
      expect(JSON.parse(res.text).message).toMatch(
        /json: (cannot unmarshal number 1e400 into Go value of type float64|unsupported value: \+Inf)/,
      );
    }
    expect((await send('GET', `${CMS}/inf`)).status).toBe(404);
    expect((await send('POST', CMS, cm(''), { 'content-type': 'application/json' })).status).toBe(201);
    for (const [type, patch] of [
      ['application/merge-patch+json', '{"metadata":{"generation":1e400}}'],
      ['application/json-patch+json', '[{"op":"add","path":"/metadata/generation","value":-1e400}]'],
      [
        'application/apply-patch+yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inf}\ndata: {a: "1"}\nbinaryData: {}\nimmutable: .nan\n',
      ],
    ] as const) {
      const res = await send('PATCH', `${CMS}/inf?fieldManager=t`, patch, { 'content-type': type });
      expect(res.status, `${type}: ${res.text.slice(0, 300)}`).toBe(400);
    }
    expect((await send('DELETE', `${CMS}/inf`)).status).toBe(200);
  });

  it.each([
    'labelSelector=%21%21%21',
    'labelSelector=a%20in%20(',
    'fieldSelector=metadata.name%3D%3D%3D',
    'fieldSelector=spec.nope%3Dx',
    'limit=-1',
    'limit=abc',
    'limit=99999999999999999999',
    'continue=garbage',
    'continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiIifQ',
    'resourceVersion=abc',
    'resourceVersion=-5',
    'resourceVersion=1&resourceVersionMatch=Nope',
    'timeoutSeconds=abc',
    'watch=maybe',
    'watch=1&timeoutSeconds=-1',
  ])('GET configmaps?%s is a 4xx Status or a success', async (q) => {
    await expectAnswered('GET', `${CMS}?${q}`);
  });
});

// ------------------------------------------------------------------------------------------------ slow clients

describe('half-sent requests', () => {
  it('a hundred requests stalled after their headers do not keep a normal request from being answered', async () => {
    const stalled: Socket[] = [];
    try {
      await Promise.all(
        Array.from(
          { length: 100 },
          (_, i) =>
            new Promise<void>((resolve, reject) => {
              const socket = connect(Number(base.port), base.hostname, () => {
                const method = i % 2 ? 'PUT' : 'POST';
                const target = i % 2 ? `${CMS}/stalled-${i}` : CMS;
                socket.write(
                  `${method} ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${plane.token}\r\n` +
                    'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion":"v1",',
                  () => resolve(),
                );
              });
              socket.on('error', reject);
              stalled.push(socket);
            }),
        ),
      );
      const started = Date.now();
      const list = await send('GET', CMS);
      expect(list.status).toBe(200);
      const created = await send('POST', CMS, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'live-' } }));
      expect(created.status).toBe(201);
      // A generous bound: the point is that the answer comes, not how fast.
      expect(Date.now() - started).toBeLessThan(2_000);
      // The stalled requests are still open, not dropped.
      expect(stalled.filter((s) => s.destroyed)).toEqual([]);
    } finally {
      for (const s of stalled) s.destroy();
    }
  });
});

// ------------------------------------------------------------------------------------------------ HTTP/2

describe('over HTTP/2 (TLS, as kubectl connects)', () => {
  it('random methods, paths, bodies and content types: success or a 4xx Status', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kapi-bad-input-h2-'));
    const secure = await startControlPlane({ port: 0, dataDir: dir, storage: 'memory' });
    const session = connectHTTP2(secure.url, { rejectUnauthorized: false });
    try {
      const send2 = (method: string, p: string, body: Uint8Array | undefined, contentType: string): Promise<Reply> =>
        new Promise((resolve, reject) => {
          // endStream: false, or node ends a GET's or DELETE's stream before the body.
          const stream = session.request(
            { ':method': method, ':path': p, authorization: `Bearer ${secure.token}`, 'content-type': contentType },
            { endStream: false },
          );
          const reply: Reply = { status: 0, contentType: '', text: '' };
          stream.on('response', (h) => {
            reply.status = Number(h[':status']);
            reply.contentType = String(h['content-type'] ?? '');
            if (reply.status === 200 && h['content-length'] === undefined && /watch/i.test(p)) {
              stream.close();
              resolve(reply);
            }
          });
          stream.setEncoding('utf8');
          stream.on('data', (d: string) => {
            reply.text += d;
          });
          stream.on('end', () => resolve(reply));
          // The server resets a stream whose body it did not read with NO_ERROR after a complete answer (RFC 9113 §8.1).
          stream.on('error', (err) => (reply.status ? resolve(reply) : reject(new Error(`${method} ${p.slice(0, 200)}: ${err.message}`))));
          stream.setTimeout(10_000, () => stream.close());
          stream.end(body);
        });
      const contentType = fc.constantFrom(...new Set(WRITES.map((w) => w.contentType)), 'text/plain');
      await fc.assert(
        fc.asyncProperty(
          method.filter((m) => m !== 'HEAD'),
          path,
          fc.option(fc.uint8Array({ maxLength: 256 })),
          contentType,
          async (m, p, body, ct) => {
            expectSuccessOrStatus(await send2(m, p, body ?? undefined, ct), `HTTP/2 ${m} ${p.slice(0, 200)}`);
          },
        ),
        { ...PARAMS, numRuns: 200 },
      );
    } finally {
      session.close();
      await secure.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
