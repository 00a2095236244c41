// How long a CDN or proxy in front of the log may keep each read answer (P183). c2sp.org/tlog-tiles: a mutable
// endpoint (the checkpoint) SHOULD NOT be cached beyond a few seconds, an immutable one SHOULD be long-lived. With a
// strong ETag a revalidation of an unchanged answer is a 304 without a body (P189; RFC 9110 §8.8.3, §13.1.2).
// The strong tag (SHA-256 of the exact bytes), the If-None-Match test and the 304 are service-kit's (P224, P245).
import { answerNotModified, CACHE_REVALIDATE } from '@proto/service-kit';
import type { FastifyInstance } from 'fastify';
import { isPublicRead } from './console-routes.ts';

/** What never changes once served: a full tile, an entries range wholly below the signed tree size. */
export const CACHE_IMMUTABLE = 'public, max-age=31536000, immutable';
// Everything else is the kit's CACHE_REVALIDATE (`no-cache`): a cache must ask the log again before each use. The
// published checkpoint moves with every signing (CHECKPOINT_INTERVAL_MS, 1 s by default) and gains late witnesses'
// lines at the same size, so any max-age would only serve a staler tree head; errors ("not there yet") change with
// the next append. The ETag is the kit's strong tag of the exact bytes (the service never varies an answer by
// content coding, so equal tags mean equal bytes), compared by the kit's If-None-Match reading (P212). The log has
// no Last-Modified (a checkpoint names no modification time of the answer), so If-Modified-Since never makes a 304.

const TILE = /^\/tile\//;

/**
 * Every GET of a read route leaves with a Cache-Control: the route's own when it set one on a success, else
 * CACHE_REVALIDATE. Without one, a CDN applies its default lifetime (an hour is common) to a tree head, a proof in
 * the current tree, or a 404 for an entry not yet signed. A 200 also carries an ETag, so that a CDN revalidating
 * `no-cache` (every few seconds for /checkpoint) fetches the answer again only when it changed (P189); an error
 * carries none, so no "not there yet" is ever confirmed by a 304.
 */
export function cacheReadRoutes(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    const path = request.url.split('?', 1)[0] ?? '';
    if (!isPublicRead(path) && !TILE.test(path)) return payload;
    const success = reply.statusCode >= 200 && reply.statusCode <= 299;
    if (!success || !reply.hasHeader('cache-control')) reply.header('cache-control', CACHE_REVALIDATE);
    // The kit's conditional answer (P245): a 200 gets the strong ETag of its bytes, and a request naming it a 304
    // with no content that keeps ETag and Cache-Control (RFC 9110 §15.4.5); an error gets no tag.
    return answerNotModified(request, reply, payload);
  });
}
