import cluster, { type Worker } from 'node:cluster';

/** How long a worker must have run for its death to restart it at once; one dying sooner waits this long first. */
const RESTART_BACKOFF_MS = 1000;

/**
 * The primary of `--workers N` (node:cluster): forks N workers, each a whole control plane with its own watch caches,
 * which listen on one port (the primary accepts and hands connections round-robin to them; TLS is the workers'). A
 * worker that dies is forked again (after a second if it died young, so a crash at start does not spin). SIGTERM or
 * SIGINT is passed to every worker, which shuts down gracefully; the primary exits once all are gone (1 if any failed).
 */
export function runPrimary(workers: number): void {
  let stopping = false;
  let exitCode = 0;
  const started = new Map<Worker, number>();
  const fork = () => started.set(cluster.fork(), Date.now());
  const stopAll = () => {
    stopping = true;
    if (started.size === 0) process.exit(exitCode);
    for (const worker of started.keys()) worker.process.kill('SIGTERM');
  };
  cluster.on('exit', (worker, code, signal) => {
    const since = started.get(worker) ?? 0;
    started.delete(worker);
    if (stopping) {
      if (code !== 0 && exitCode === 0) exitCode = 1;
      if (started.size === 0) process.exit(exitCode);
      return;
    }
    // A usage error is every worker's: stop rather than fork again.
    if (code === 2) {
      exitCode = 2;
      stopAll();
      return;
    }
    console.error(`worker ${worker.process.pid} died (${signal ?? `exit code ${code}`}); starting another`);
    setTimeout(fork, Date.now() - since < RESTART_BACKOFF_MS ? RESTART_BACKOFF_MS : 0);
  });
  for (let i = 0; i < workers; i++) fork();
  console.log(`kapi example control plane: primary ${process.pid} running ${workers} workers`);
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.on(sig, () => {
      if (stopping) process.exit(1);
      console.log(`\n${sig}: stopping ${started.size} workers`);
      stopAll();
    });
}
