// What a CDN or proxy may do with a reply when the route did not say (P195). Without a Cache-Control a cache
// applies its own heuristic lifetime (RFC 9111 §4.2.2; 404 and 200 are both heuristically cacheable), so it could
// keep a "not found" after the record exists, an old receipt status, or settings the service no longer has.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unmodifiedSince } from './http-date.ts';

/** Never kept: errors, which change with the next write, and probes, which must see this instance now. */
export const CACHE_NO_STORE = 'no-store';
/** May be kept, but asked for again before each use (RFC 9111 §5.2.2.4). */
export const CACHE_REVALIDATE = 'no-cache';

const PROBES = new Set(['/health', '/ready', '/metrics']);

/** Directives that already forbid reusing a stored answer without asking the service. */
const NO_REUSE = /(^|,)\s*(no-store|no-cache)\s*(,|$)/i;

/**
 * The Cache-Control a reply leaves with. A route's own header wins on a success. On an error it wins only when it
 * already forbids reuse: a header set for the answer the route meant to give (capabilities' or a list's lifetime)
 * must not make a 500 thrown afterwards, or a failed serialization, storable.
 */
export function cacheControlFor(
  statusCode: number,
  routePath: string | undefined,
  own: string | undefined,
): string | undefined {
  if (statusCode >= 400) return own !== undefined && NO_REUSE.test(own) ? undefined : CACHE_NO_STORE;
  if (own !== undefined) return undefined;
  return routePath !== undefined && PROBES.has(routePath) ? CACHE_NO_STORE : CACHE_REVALIDATE;
}

/**
 * Registered first on the root instance, so it runs before every plugin's onSend hook: one that sets its own
 * header afterwards (the /v2 `no-store`, the console's `no-cache`, the log's read routes) still has the last word.
 */
export function installCacheDefaults(app: FastifyInstance): void {
  // Callback style: this runs for every reply; no promise per request (P113).
  app.addHook('onSend', (request, reply, payload, done) => {
    const own = reply.getHeader('cache-control');
    const value = cacheControlFor(
      reply.statusCode,
      request.routeOptions.url,
      own === undefined ? undefined : String(own),
    );
    if (value !== undefined) reply.header('cache-control', value);
    done(null, payload);
  });
}

/**
 * A strong entity tag: the SHA-256 of the exact answer bytes. A JSON and a CBOR answer differ in bytes, so in tag
 * (the wire format already sends `Vary: Accept`).
 */
export function strongEntityTag(payload: string | Buffer): string {
  return `"${createHash('sha256').update(payload).digest('base64url')}"`;
}

/** RFC 9110 §13.1.2: If-None-Match names `tag` (weak comparison, a list, or `*`). Our tags hold no comma. */
export function noneMatchHits(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const candidate = part.trim();
    return candidate === '*' || (candidate.startsWith('W/') ? candidate.slice(2) : candidate) === tag;
  });
}

/**
 * RFC 9110 §13.2.2 for a GET or HEAD: whether the request's validators let it be answered 304. If-None-Match
 * decides when present (§13.1.2); If-Modified-Since only without it, and only for a document that has a
 * modification time (`modifiedMs`, full precision), read as an HTTP-date and nothing else (P212, P245).
 */
export function requestNotModified(
  headers: Pick<IncomingHttpHeaders, 'if-none-match' | 'if-modified-since'>,
  validators: { readonly etag: string; readonly modifiedMs?: number; readonly nowMs?: number },
): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return noneMatchHits(ifNoneMatch, validators.etag);
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined || validators.modifiedMs === undefined) return false;
  return unmodifiedSince(validators.modifiedMs, ifModifiedSince, validators.nowMs ?? Date.now());
}

/**
 * A route-level onSend hook for an answer sent `no-cache`: a 200 carries a strong ETag, and a request naming it
 * gets a 304 with no body (RFC 9110 §15.4.5), so revalidating an unchanged document costs a few headers.
 */
export async function answerNotModified(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
  const tag = strongEntityTag(payload);
  reply.header('etag', tag);
  if (!requestNotModified(request.headers, { etag: tag })) return payload;
  reply.code(304).removeHeader('content-type');
  // HEAD: Fastify measures the body for Content-Length and then drops it; GET: nothing is sent.
  return request.method === 'HEAD' ? payload : null;
}
