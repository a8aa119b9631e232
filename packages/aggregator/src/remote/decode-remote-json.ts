import type { z } from 'zod';

/**
 * A remote server's JSON document decoded as Go's encoding/json decodes it into kube's structs (the schema says
 * how): not JSON, or a field of the wrong type, fails the whole document with `failed to decode <what>: …`; a
 * top-level null is the zero value. What the aggregator serves of a remote's documents is then well typed.
 */
export function decodeRemoteJSON<S extends z.ZodType>(schema: S, body: Buffer, what: string): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new Error(`failed to decode ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const result = schema.safeParse(json ?? {});
  if (!result.success) throw new Error(`failed to decode ${what}: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}
