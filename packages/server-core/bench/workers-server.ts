/**
 * A node:cluster worker of workers.bench.ts: a whole GenericAPIServer (Namespace and ConfigMap, each behind its own
 * watch cache) on the etcd the primary names in KAPI_BENCH_ETCD (keys under KAPI_BENCH_PREFIX), listening on the
 * port the workers share (listen(0) in a cluster worker: the primary picks one port and hands connections round-robin).
 * It tells the primary its URL once serving, and shuts down when the primary disconnects or sends SIGTERM.
 */
import { ConfigMap, Namespace } from '@kapi/registry';
import { EtcdStorage } from '@kapi/storage-etcd';
import { GenericAPIServer, listen } from '../src/index.ts';

const endpoint = process.env.KAPI_BENCH_ETCD;
if (!endpoint || !process.send) throw new Error('workers-server.ts runs as a cluster worker of workers.bench.ts');

const server = new GenericAPIServer({
  storage: new EtcdStorage({ endpoints: [endpoint], prefix: process.env.KAPI_BENCH_PREFIX ?? '' }),
  resources: [Namespace, ConfigMap],
});
await server.start();
const serving = await listen(server.handler);
process.send({ url: serving.url });

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await serving.close();
  await server.shutdown();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
