import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APIExtensions } from '@kapi/apiextensions';
import { FakeClock } from '@kapi/apimachinery';
import { Namespace } from '@kapi/registry';
import { GenericAPIServer, listen, serve, writeKubeconfig } from '@kapi/server-core';
import { MemoryStorage } from '@kapi/storage';
import { BUILTIN_RESOURCES } from './src/builtin-resources.ts';

const phases: Record<string, number[]> = {};
const rec = (k: string, t: number) => (phases[k] ??= []).push(performance.now() - t);
async function once(variant: string) {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  let t = performance.now();
  const cp = new GenericAPIServer({ storage, clock, resources: variant === 'ns' ? [Namespace] : [...BUILTIN_RESOURCES] });
  const server =
    variant === 'noext'
      ? cp
      : new GenericAPIServer({
          storage,
          clock,
          closeStorage: false,
          resources: [],
          providers: [new APIExtensions({ clock, onError: () => {} }).provider()],
          delegate: cp,
        });
  rec(variant + ' construct', t);
  t = performance.now();
  await server.start();
  rec(variant + ' start', t);
  t = performance.now();
  const s = await serve(server.handler, { port: 0 });
  rec(variant + ' serve', t);
  t = performance.now();
  const d = await mkdtemp(join(tmpdir(), 'x-'));
  await writeKubeconfig(join(d, 'k'), { server: s.url, ca: '', token: '' });
  rec(variant + ' kubeconfig', t);
  t = performance.now();
  const r = await fetch(`${s.url}/readyz`);
  await r.text();
  rec(variant + ' readyz', t);
  t = performance.now();
  await server.shutdown({ serving: s, gracePeriodMs: 1000 });
  await rm(d, { recursive: true });
  rec(variant + ' stop', t);
}
for (let i = 0; i < 40; i++) for (const v of ['full', 'noext', 'ns']) await once(v);
for (const [k, v] of Object.entries(phases)) {
  v.sort((a, b) => a - b);
  console.log(k.padEnd(24), v[Math.floor(v.length / 2)]!.toFixed(2));
}
