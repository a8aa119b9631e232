#!/usr/bin/env node
// `npx kapi-test-server`: a kapi test server for another language's tests (Go's envtest with USE_EXISTING_CLUSTER,
// Python, Java): it writes a kubeconfig, prints one ready line, and serves until SIGTERM, SIGINT or (if asked) stdin ends.
import { enableCompileCache } from 'node:module';
import { parseTestServerFlags, USAGE, UsageError } from './test-server-flags.ts';

// Loading the server's modules is most of a start (seconds on a busy machine); harnesses start it again and again,
// so V8's compile cache is worth keeping (in the OS temp directory, as tsc does).
enableCompileCache();

async function main(): Promise<number> {
  let flags: ReturnType<typeof parseTestServerFlags>;
  try {
    flags = parseTestServerFlags(process.argv.slice(2), process.cwd());
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`kapi-test-server: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // Imported only now: a bad flag or --help answers without loading the server.
  const { startTestServerCommand } = await import('./test-server-command.ts');
  let running: Awaited<ReturnType<typeof startTestServerCommand>>;
  try {
    running = await startTestServerCommand(flags);
  } catch (err) {
    process.stderr.write(`kapi-test-server: ${(err as Error).message}\n`);
    return 1;
  }
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    if (flags.exitOnStdinClose) {
      process.stdin.once('end', stop);
      process.stdin.once('close', stop);
      // Reading is what makes 'end' come; the data itself is ignored.
      process.stdin.resume();
    }
  });
  process.stdout.write(`kapi-test-server ready: ${running.url} kubeconfig=${running.kubeconfigPath}\n`);
  await stopped;
  await running.stop();
  return 0;
}

process.exitCode = await main();
// Whatever still holds the event loop (stdin, keep-alive sockets) must not keep a stopped server's process alive.
process.exit();
