import { type HAClient, sleep } from './ha-client.ts';

/**
 * Dev-only: the HA harness's load. A writer owns its ConfigMaps (no two writers touch one): it creates each, updates
 * it, now and then deletes it (and creates it again later) — each write retried until acknowledged, and recorded with
 * the resourceVersion the server answered. Every write of an object has the next `seq` and puts it in data.seq.
 * Updates are unconditional PUTs of the whole object, so a retry of one that was applied though its answer was lost
 * changes nothing and answers the same resourceVersion; a retried create that meets AlreadyExists reads the object
 * back, a retried delete that meets NotFound was applied (its outcome was unknown). kube answers a ConfigMap's DELETE
 * with a Status, so a delete's resourceVersion is not known: the checks place it between its neighbours.
 */

export interface AckedWrite {
  readonly name: string;
  /** The write's number among the object's writes (0, 1, …). */
  readonly seq: number;
  /** The resourceVersion answered; undefined for a delete (kube answers a Status). */
  readonly rv: bigint | undefined;
  /** data.seq of the object its watch event carries: its own seq, or for a delete the deleted state's. */
  readonly shows: string;
  readonly startedAt: number;
  readonly ackedAt: number;
  /** `read-back`: a create whose answer was lost, found applied by a GET after AlreadyExists; `delete-again`: a delete whose retry met NotFound. */
  readonly via: 'create' | 'update' | 'read-back' | 'delete' | 'delete-again';
  /** Retries its client made for it. */
  readonly retries: number;
  /** Which writer (index) made it. */
  readonly writer: number;
  /** The server that answered. */
  readonly server: string;
}

export interface WriterOptions {
  client: HAClient;
  writer: number;
  namespace: string;
  /** The writer's objects are `<namePrefix><n>`; it starts with `objects` of them. */
  namePrefix: string;
  objects: number;
  /** Every this many writes, one is the create of a new object (so creates, too, meet the faults). */
  createEvery: number;
  /** Every this many writes, one deletes the object whose turn it is (created again on its next turn). */
  deleteEvery: number;
  /** Pause between writes (keeps the load modest on 2 cores). */
  pauseMs: number;
  stopped: () => boolean;
  onAck: (w: AckedWrite) => void;
}

function configMap(name: string, seq: number) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { seq: String(seq) } };
}

export async function runWriter(o: WriterOptions): Promise<void> {
  const base = `/api/v1/namespaces/${o.namespace}/configmaps`;
  const next = new Map<string, number>();
  /** data.seq of each object that exists now. */
  const shown = new Map<string, string>();
  const names = Array.from({ length: o.objects }, (_, n) => `${o.namePrefix}${n}`);
  let turn = 0;
  for (let i = 0; !o.stopped(); i++) {
    let name: string;
    if (i >= names.length && i % o.createEvery === 0) {
      name = `${o.namePrefix}${names.length}`;
      names.push(name);
    } else {
      name = names[turn++ % names.length] as string;
    }
    const seq = next.get(name) ?? 0;
    const startedAt = Date.now();
    const retriesBefore = o.client.retryCount();
    let rv: string | undefined;
    let via: AckedWrite['via'];
    let shows = String(seq);
    const current = shown.get(name);
    if (current === undefined) {
      const res = await o.client.request('POST', base, configMap(name, seq));
      if (res.status === 201) {
        rv = res.body.metadata.resourceVersion;
        via = 'create';
      } else if (res.status === 409 && res.body?.reason === 'AlreadyExists') {
        const got = await o.client.request('GET', `${base}/${name}`);
        if (got.status !== 200 || got.body.data?.seq !== String(seq))
          throw new Error(`create of ${name} met AlreadyExists, then GET answered ${got.status} ${JSON.stringify(got.body)}`);
        rv = got.body.metadata.resourceVersion;
        via = 'read-back';
      } else {
        throw new Error(`POST ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      shown.set(name, String(seq));
    } else if (i % o.deleteEvery === o.deleteEvery - 1) {
      const res = await o.client.request('DELETE', `${base}/${name}`);
      if (res.status === 200) via = 'delete';
      else if (res.status === 404 && o.client.retryCount() > retriesBefore) via = 'delete-again';
      else throw new Error(`DELETE ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      shows = current;
      shown.delete(name);
    } else {
      const res = await o.client.request('PUT', `${base}/${name}`, configMap(name, seq));
      if (res.status !== 200) throw new Error(`PUT ${name} seq ${seq}: ${res.status} ${JSON.stringify(res.body)}`);
      if (res.body.data?.seq !== String(seq)) throw new Error(`PUT ${name} seq ${seq} answered ${JSON.stringify(res.body)}`);
      rv = res.body.metadata.resourceVersion;
      via = 'update';
      shown.set(name, String(seq));
    }
    next.set(name, seq + 1);
    o.onAck({
      name,
      seq,
      rv: rv === undefined ? undefined : BigInt(rv),
      shows,
      startedAt,
      ackedAt: Date.now(),
      via,
      retries: o.client.retryCount() - retriesBefore,
      writer: o.writer,
      server: o.client.server,
    });
    if (o.pauseMs > 0) await sleep(o.pauseMs);
  }
}
