// What Node's HTTP parser lets through and a front may read another way (RFC 9112 §3.2, §3.2.2, §6.1; P585, P586).
// Node reads `Transfer-Encoding: identity` + `Transfer-Encoding: chunked` (or `gzip, chunked`) as chunked; a
// front that honours the first line, or decodes gzip, sees another body and another next request. Node keeps the
// first of two Host lines and takes any bytes as one; a front may route on the other. An absolute-form target
// (`GET http://attacker.example/docs/static/index.html`) reached the routes as the whole URL, and Swagger UI's
// redirect built its Location from it: a link naming the attacker's host.
import type { IncomingMessage } from 'node:http';
import { type HttpError, httpError } from './http-errors.ts';

/** RFC 3986 §3.2.2 host (IP-literal or reg-name, possibly empty), then an optional port (§3.2.3). */
const HOST_VALUE = /^(?:\[[0-9A-Za-z:.\-_~!$&'()*+,;=%]+\]|[0-9A-Za-z\-._~!$&'()*+,;=%]*)(?::\d*)?$/;

/** `scheme://authority` at the head of an absolute-form target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM_ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

const refusal = (message: string): HttpError =>
  // Closed after the answer: what follows on the connection is framed by rules the two sides did not share.
  httpError('BAD_REQUEST', message, { headers: { connection: 'close' } });

function hostLines(raw: IncomingMessage): number {
  let count = 0;
  for (let i = 0; i < raw.rawHeaders.length; i += 2) {
    const name = raw.rawHeaders[i];
    if (name?.length === 4 && name.toLowerCase() === 'host') count += 1;
  }
  return count;
}

/** The 400 for a request framed in a way two parsers may read differently; undefined for every other. */
export function framingRefusal(raw: IncomingMessage): HttpError | undefined {
  const coding = raw.headers['transfer-encoding'];
  if (coding !== undefined) {
    // No service decodes a transfer coding but chunked (and HTTP/1.0 has none: §6.1 says its framing is faulty).
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor === 0) {
      return refusal('An HTTP/1.0 request cannot carry Transfer-Encoding');
    }
    if (coding.trim().toLowerCase() !== 'chunked') {
      return refusal('Transfer-Encoding must be chunked alone, sent once');
    }
  }
  const host = raw.headers.host;
  if (host !== undefined && (hostLines(raw) > 1 || !HOST_VALUE.test(host))) {
    return refusal('The request must carry one Host header naming a host');
  }
  return undefined;
}

/**
 * Fastify's `rewriteUrl`: an absolute-form target loses its scheme and authority before routing, so no route,
 * redirect, log line or error message sees a host the client chose. Origin-form targets are returned as they are.
 */
export function originFormUrl(req: { readonly url?: string | undefined }): string {
  const url = req.url ?? '/';
  if (url.startsWith('/')) return url;
  const path = url.replace(ABSOLUTE_FORM_ORIGIN, '');
  if (path === url) return url;
  return path.startsWith('/') ? path : `/${path}`;
}
