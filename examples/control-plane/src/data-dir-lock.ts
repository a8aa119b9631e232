import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

const LOCK_FILE = '.lock';

/** Whether a process of this machine with `pid` is alive (EPERM: alive, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` while this process holds the data directory's lock (`<dir>/.lock`, created exclusively, holding the pid),
 * so that several processes of one control plane started at once (`--workers N`, or separate processes given the same
 * --data-dir) create its token file, CAs, keys and certificates once: the first creates them, the others wait and
 * reuse them. A lock left by a process that died (its pid gone) is taken over. For processes of one machine.
 */
export async function withDataDirLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const path = join(dir, LOCK_FILE);
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number(await readFile(path, 'utf8').catch(() => ''));
    if (pid > 0 && !alive(pid)) {
      // Moved aside under a name of its own, so that of two processes finding it stale only one removes it.
      const stale = `${path}.${process.pid}.stale`;
      await rename(path, stale).then(
        () => rm(stale, { force: true }),
        () => {},
      );
      continue;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  try {
    return await fn();
  } finally {
    await rm(path, { force: true });
  }
}
