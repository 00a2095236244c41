// A local HTTP server that stands where a real upstream would (an anchor service, a JSON-RPC node, a witness, a
// list mirror) and answers as an attacker or a broken peer would, for the hostile tests of every package. It
// listens on 127.0.0.1:0, reads each request in full before the test's handler sees it (so a handler reads as the
// answer it gives), records every request (so a test can say "that host was never asked"), and closes even while
// answers are still dripping. docs/architecture.md §6 (end-to-end tests over real HTTP).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { buffer } from 'node:stream/consumers';

/** One request as the front received it. */
export interface FrontRequest {
  readonly method: string;
  /** Path and query as sent (`/v1/proof?x=1`). */
  readonly url: string;
  /** The path alone, without the query. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The body as UTF-8 text. */
  text(): string;
}

/** Answers one request; a throw or a rejection destroys the answer (the client sees the connection reset). */
export type FrontHandler = (request: FrontRequest, res: ServerResponse) => unknown;

/** Handlers by exact path; a path not in the table is answered 404. */
export type FrontRoutes = Readonly<Record<string, FrontHandler>>;

export interface HostileFront {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Every request received so far, oldest first. */
  readonly requests: readonly FrontRequest[];
  /** How many requests were received so far (a counter to take before an attack and compare after). */
  hits(): number;
  /** Ends every open answer and stops listening. Safe to call twice. */
  close(): Promise<void>;
}

function handlerFor(answer: FrontHandler | FrontRoutes): FrontHandler {
  if (typeof answer === 'function') return answer;
  return (request, res) => {
    const route = answer[request.path];
    if (route !== undefined) return route(request, res);
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'no such route' }));
    return undefined;
  };
}

/** Starts a front answering with `answer`: one handler for every request, or a table of handlers by path. */
export async function startHostileFront(answer: FrontHandler | FrontRoutes): Promise<HostileFront> {
  const handle = handlerFor(answer);
  const requests: FrontRequest[] = [];
  const server = createServer((req, res) => {
    buffer(req)
      .then(async (body) => {
        const url = req.url ?? '/';
        const request: FrontRequest = {
          method: req.method ?? 'GET',
          url,
          path: url.split('?')[0] ?? url,
          headers: req.headers,
          body,
          text: () => body.toString('utf8'),
        };
        requests.push(request);
        await handle(request, res);
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    hits: () => requests.length,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        // A dripping or half-sent answer keeps its connection open for ever: end them, or close() never returns.
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}

/**
 * Headers of one connection (RFC 9110 §7.6.1), and the two fetch sets itself from the URL and the body: a front
 * that passed them on would speak for its own connection to the upstream, or be refused by fetch.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'content-length',
]);

/** The request's end-to-end headers: the token of a guarded upstream included, as a transparent proxy passes it. */
function endToEndHeaders(headers: IncomingHttpHeaders): Headers {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.includes(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
  }
  // What the fronts sent before they passed headers on: a JSON-RPC or log call without one still reads as JSON.
  if (!out.has('content-type')) out.set('content-type', 'application/json');
  return out;
}

/**
 * Sends `request` on to `target` (a full URL) as it came, end-to-end headers included (`authorization` too: a front
 * before the log's /add or the anchor service's POST /anchor must not turn every honest call into a 401), for a
 * front that passes honest traffic through.
 */
export async function forwardTo(target: string, request: FrontRequest): Promise<Response> {
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  return await fetch(target, {
    method: request.method,
    headers: endToEndHeaders(request.headers),
    ...(hasBody ? { body: request.body } : {}),
  });
}
