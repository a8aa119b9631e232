#!/usr/bin/env node
// The example controller manager as a process:
//   node --conditions=@kapi/source examples/controllers/src/main.ts --kubeconfig path [--identity id] [--workers n]
// It takes leadership through the Lease kube-system/example-controller-manager, then runs its controllers until
// SIGINT or SIGTERM (a leader releases the Lease on the way out, so another manager takes over at once).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { ControllerManager } from './controller-manager.ts';
import { ReplicaController } from './replica-controller.ts';
import { Scheduler } from './scheduler.ts';

const { values } = parseArgs({
  allowNegative: true,
  options: {
    kubeconfig: { type: 'string' },
    identity: { type: 'string' },
    workers: { type: 'string', default: '2' },
    'leader-elect': { type: 'boolean', default: true },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(
    'usage: main.ts [--kubeconfig path] [--identity id] [--workers n] [--no-leader-elect]\n' +
      'Without --kubeconfig: $KUBECONFIG or ~/.kube/config (client-node loadFromDefault).',
  );
  process.exit(0);
}
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers must be a positive integer, not ${values.workers}`);

const kubeConfig = new KubeConfig();
if (values.kubeconfig) kubeConfig.loadFromFile(values.kubeconfig);
else kubeConfig.loadFromDefault();
const identity = values.identity ?? `${hostname()}_${randomUUID()}`;
const log = (msg: string) => console.log(`${new Date().toISOString()} ${msg}`);

const manager = new ControllerManager({
  kubeConfig,
  identity,
  leaderElection: values['leader-elect'] ? {} : false,
  onEvent: (event) => log(`${identity}: ${event}`),
  onError: (err, what) => log(`${what}: ${err instanceof Error ? err.message : String(err)}`),
});
// One registration per controller.
manager.register(
  'replica-controller',
  ({ kubeConfig }) =>
    new ReplicaController({
      kubeConfig,
      workers,
      onError: (err, what) => log(`replica-controller: ${what}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`),
    }),
);
manager.register('scheduler', ({ kubeConfig }) => new Scheduler({ kubeConfig, log: (line) => log(`scheduler: ${line}`) }));

const stop = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop.abort());
log(`controller manager ${identity}: ${manager.controllers.join(', ')} against ${kubeConfig.getCurrentCluster()?.server}`);
await manager.run(stop.signal);
log('stopped');
