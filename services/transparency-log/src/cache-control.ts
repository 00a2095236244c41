// How long a CDN or proxy in front of the log may keep each read answer (P183). c2sp.org/tlog-tiles: a mutable
// endpoint (the checkpoint) SHOULD NOT be cached beyond a few seconds, an immutable one SHOULD be long-lived.
import type { FastifyInstance } from 'fastify';
import { isPublicRead } from './console-routes.ts';

/** What never changes once served: a full tile, an entries range wholly below the signed tree size. */
export const CACHE_IMMUTABLE = 'public, max-age=31536000, immutable';
/**
 * Everything else: a cache must ask the log again before each use. The published checkpoint moves with every
 * signing (CHECKPOINT_INTERVAL_MS, 1 s by default) and gains late witnesses' lines at the same size, so any
 * max-age would only serve a staler tree head; errors ("not there yet") change with the next append.
 */
export const CACHE_REVALIDATE = 'no-cache';

const TILE = /^\/tile\//;

/**
 * Every GET of a read route leaves with a Cache-Control: the route's own when it set one on a success, else
 * CACHE_REVALIDATE. Without one, a CDN applies its default lifetime (an hour is common) to a tree head, a proof in
 * the current tree, or a 404 for an entry not yet signed.
 */
export function cacheReadRoutes(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    const path = request.url.split('?', 1)[0] ?? '';
    if (!isPublicRead(path) && !TILE.test(path)) return payload;
    const success = reply.statusCode >= 200 && reply.statusCode <= 299;
    if (!success || !reply.hasHeader('cache-control')) reply.header('cache-control', CACHE_REVALIDATE);
    return payload;
  });
}
