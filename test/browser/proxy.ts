// A local HTTP proxy in front of a real service, for the console's browser tests (P163, P164): it forwards every
// request unchanged, and can hold back or rewrite the answers a test picks, so a page can be watched while an
// answer is slow or after one was altered in transit. The service behind it is the real one; nothing of ours is
// replaced.
import { createServer, request as forward, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request that went through the proxy. */
export interface Passed {
  readonly method: string;
  readonly path: string;
  /** The client went away before the whole answer was sent (an aborted fetch, a closed page). */
  aborted: boolean;
  /** The whole answer was sent. */
  finished: boolean;
  /** Settles once the answer was sent whole or the client went away. */
  readonly done: Promise<void>;
}

/** What a rule does to the answers of the requests it matches. */
export interface Rule {
  readonly matches: (method: string, path: string) => boolean;
  /** Sends the status and headers at once, then holds the body until this settles. */
  readonly holdBody?: Promise<void>;
  /** Rewrites the body (read whole); content-length is recomputed. */
  readonly rewrite?: (body: Buffer) => Buffer;
}

export interface FrontProxy {
  readonly url: string;
  /** Every request seen, in arrival order. */
  readonly passed: Passed[];
  /** Rules tried in order; the first that matches applies. A test may push and splice them. */
  readonly rules: Rule[];
  /** Resolves with the first request seen from now on that matches. */
  next(method: string, path: RegExp): Promise<Passed>;
  close(): Promise<void>;
}

/** Hop-by-hop headers and the length, which the proxy sets itself. */
function answerHeaders(headers: IncomingHttpHeaders, length?: number): IncomingHttpHeaders {
  const {
    connection: _c,
    'keep-alive': _k,
    'transfer-encoding': _t,
    'content-length': cl,
    ...rest
  } = headers;
  if (length !== undefined) return { ...rest, 'content-length': String(length) };
  return cl === undefined ? rest : { ...rest, 'content-length': cl };
}

/** A request's headers without its conditions: a rewritten answer needs the whole body, not a 304. */
function unconditional(headers: IncomingHttpHeaders, host: string): IncomingHttpHeaders {
  const { 'if-none-match': _n, 'if-modified-since': _m, ...rest } = headers;
  return { ...rest, host };
}

export async function startProxy(target: string): Promise<FrontProxy> {
  const upstream = new URL(target);
  const passed: Passed[] = [];
  const rules: Rule[] = [];
  const waiting: Array<{ method: string; path: RegExp; resolve: (p: Passed) => void }> = [];
  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    let settle = () => {};
    const entry: Passed = {
      method,
      path,
      aborted: false,
      finished: false,
      done: new Promise<void>((resolve) => {
        settle = resolve;
      }),
    };
    passed.push(entry);
    res.on('close', () => {
      entry.finished = res.writableFinished;
      entry.aborted = !res.writableFinished;
      settle();
    });
    for (const [i, w] of waiting.entries()) {
      if (w.method === method && w.path.test(path)) {
        waiting.splice(i, 1);
        w.resolve(entry);
        break;
      }
    }
    const rule = rules.find((r) => r.matches(method, path));
    const out = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method,
        path,
        headers: rule?.rewrite
          ? unconditional(req.headers, upstream.host)
          : { ...req.headers, host: upstream.host },
      },
      async (answer) => {
        if (rule?.rewrite) {
          const chunks: Buffer[] = [];
          for await (const chunk of answer) chunks.push(chunk as Buffer);
          const whole = Buffer.concat(chunks);
          const body = answer.statusCode === 200 ? rule.rewrite(whole) : whole;
          // Not cacheable: the browser must not keep an altered copy for the next test, or revalidate it.
          const { etag: _e, 'last-modified': _l, ...headers } = answerHeaders(answer.headers, body.length);
          res.writeHead(answer.statusCode ?? 502, { ...headers, 'cache-control': 'no-store' });
          res.end(body);
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answerHeaders(answer.headers));
        res.flushHeaders();
        if (rule?.holdBody) {
          const chunks: Buffer[] = [];
          for await (const chunk of answer) chunks.push(chunk as Buffer);
          await rule.holdBody;
          if (!res.destroyed) res.end(Buffer.concat(chunks));
          return;
        }
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    passed,
    rules,
    next: (method, path) => new Promise((resolve) => waiting.push({ method, path, resolve })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
