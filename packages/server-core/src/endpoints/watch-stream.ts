import { once } from 'node:events';
import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import { ConversionError, type RequestContext as StoreRequestContext, type StoreWatchOptions } from '@kapi/registry';
import type { Watch } from '@kapi/storage';
import { encodedEvent } from '@kapi/watchcache';
import type { RequestContext } from '../filters/context.ts';
import type { RequestInfo } from '../request-info.ts';
import { negotiateOutput } from './negotiation.ts';
import { storeVersion, transform } from './output-transform.ts';
import { listOptionsOf, watchOptionsOf } from './request-options.ts';
import type { ResourceEndpoint, ResourceHandlerOptions } from './resource-handler.ts';
import { encodeBody, wantsPretty } from './response.ts';

/**
 * A watch as a chunked stream of JSON lines, `{"type":…,"object":…}` each. Plain JSON events are written from the
 * watch cache's shared encoding (one encode per event for all watchers); Table and partial-metadata watches
 * transform each event. The stream ends on timeoutSeconds (or the server's randomized default), when the client
 * goes away, when the server shuts down (which ends the response), or when the resource is removed.
 */
export async function serveWatch(
  ctx: RequestContext,
  endpoint: ResourceEndpoint,
  info: RequestInfo,
  rctx: StoreRequestContext,
  options: ResourceHandlerOptions,
): Promise<void> {
  const def = endpoint.definition;
  const q = ctx.url.searchParams;
  const out = negotiateOutput(ctx.req.headers.accept, { table: true, partial: 'PartialObjectMetadata', jsonOnly: true });
  const { watch: _w, limit: _l, continue: _c, ...listOpts } = listOptionsOf(q);
  const wopts = watchOptionsOf(q);
  // A watch of one object (…/watch/ns/widgets/name or a name in the path with ?watch) is a field selector on the name.
  if (info.name) {
    const byName = `metadata.name=${info.name}`;
    listOpts.fieldSelector = listOpts.fieldSelector ? `${listOpts.fieldSelector},${byName}` : byName;
  }
  const min = options.minRequestTimeoutSeconds;
  // As kube's watch handler: no timeoutSeconds (or 0) takes the randomized default; a negative one has already expired.
  const asked = wopts.timeoutSeconds ?? 0;
  const timeoutSeconds = asked === 0 ? min * (1 + Math.random()) : Math.max(asked, 0.001);
  const abort = new AbortController();
  const res = ctx.res;
  const onClose = (): void => abort.abort();
  res.on('close', onClose);
  // A removed resource ends its streams as shutdown does: the response ends, the client sees the stream close.
  const removed = endpoint.removed;
  removed?.addEventListener('abort', onClose, { once: true });
  if (removed?.aborted) abort.abort();
  // In the storage version the Store passes the watch cache's events through, so encodedEvent shares their bytes.
  const watchOpts: StoreWatchOptions = { ...listOpts, ...wopts, timeoutSeconds, signal: abort.signal, ...storeVersion(info, out) };
  let watch: Watch;
  try {
    watch = endpoint.store.watch(rctx, watchOpts);
  } catch (err) {
    res.off('close', onClose);
    removed?.removeEventListener('abort', onClose);
    throw err;
  }
  options.onWatch?.(def, info.apiVersion, 1);
  try {
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'no-cache, private');
    // Headers go out now: clients wait for them before they consider the watch established.
    res.flushHeaders();
    const pretty = wantsPretty(ctx);
    let first = true;
    for await (const ev of watch) {
      if (abort.signal.aborted || res.writableEnded || res.destroyed) break;
      let bytes: Uint8Array | string;
      let failed = false;
      if ((out.target === 'object' && !pretty) || ev.type === 'ERROR' || ev.type === 'BOOKMARK') {
        bytes = encodedEvent(ev);
      } else {
        let object = transform(def, ev.object as KubeObject, out, ctx, options.clock, !first, info.apiVersion);
        // Awaited only for a Table row of a kind that converts asynchronously; a failure ends the watch with an
        // ERROR event, as kube's watch does when an event cannot be converted.
        if (object instanceof Promise) {
          try {
            object = await object;
          } catch (err) {
            failed = true;
            object = ConversionError.watchStatus(err);
          }
        }
        first = false;
        const event = { type: failed ? 'ERROR' : ev.type, object };
        bytes = `${encodeBody(event satisfies WatchEvent | { type: string; object: unknown }, 'application/json', false)}\n`;
      }
      if (!res.write(bytes)) {
        try {
          await once(res, 'drain', { signal: abort.signal });
        } catch {
          break;
        }
      }
      if (failed) break;
    }
    if (!res.writableEnded && !res.destroyed) res.end();
  } finally {
    watch.stop();
    res.off('close', onClose);
    removed?.removeEventListener('abort', onClose);
    options.onWatch?.(def, info.apiVersion, -1);
  }
}
