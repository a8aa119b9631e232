import { readFileSync } from 'node:fs';

/** The example's CRD manifests (Machine, Part), as YAML text for startTestServer's `crds`. */
export const CRDS: string[] = ['machines.yaml', 'parts.yaml'].map((f) => readFileSync(new URL(`../../crds/${f}`, import.meta.url), 'utf8'));

/** Polls `check` until it returns a value other than undefined/false (short real waits: the server is in process). */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what = 'condition',
  tries = 400,
): Promise<T> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
