import { vi } from 'vitest';

/**
 * Polls `check` until it returns a value other than undefined/false (vitest's waitFor, as the scheduler fixture uses;
 * short real waits: the server is in process). A check that throws is tried again; the last error is reported.
 */
export function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what = 'condition'): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await check();
      if (v === undefined || v === false) throw new Error(`timed out waiting for ${what}`);
      return v;
    },
    { timeout: 5_000, interval: 5 },
  );
}
