// HTTP/1.1 edges an attacker reaches with nothing but a socket: a Host (or X-Forwarded-Host, Forwarded,
// absolute-form target) of their choosing, framing two parsers may read differently (request smuggling), and a
// pace of bytes that holds a connection (slowloris). Shared by every service's redteam4 tests, which drive the real
// service over node:net with these bytes.
import { connect, type Socket } from 'node:net';
import { rawConnection } from './raw-connection.ts';

/** The marker every attacker-chosen authority carries; an answer that contains it repeated what the attacker sent. */
export const ATTACKER_HOST_MARK = 'attacker-host';

/** Every header a proxy or framework reads an origin from, each naming an attacker's host. */
export const ATTACKER_ORIGIN_HEADERS = [
  `Host: ${ATTACKER_HOST_MARK}.example`,
  `X-Forwarded-Host: ${ATTACKER_HOST_MARK}-xfh.example`,
  'X-Forwarded-Proto: gopher',
  `X-Forwarded-Server: ${ATTACKER_HOST_MARK}-xfs.example`,
  `X-Forwarded-Prefix: /${ATTACKER_HOST_MARK}-prefix`,
  `X-Original-Host: ${ATTACKER_HOST_MARK}-xoh.example`,
  `Forwarded: host=${ATTACKER_HOST_MARK}-fwd.example;proto=gopher`,
] as const;

/** The GET paths of a service's OpenAPI document, each `{param}` filled with `fill`, plus the docs' own pages. */
export async function documentedGetPaths(url: string, fill: (param: string) => string): Promise<string[]> {
  const document = (await (await fetch(`${url}/docs/json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const paths = Object.entries(document.paths)
    .filter(([, methods]) => 'get' in methods)
    .map(([path]) => path.replace(/\{([^}]+)\}/g, (_, name: string) => fill(name)));
  return [...paths, '/docs', '/docs/', '/docs/static/index.html', '/docs/json', '/docs/yaml'];
}

export interface HostLeak {
  readonly path: string;
  readonly how: string;
  readonly status: number;
  /** The answer's line that named the attacker's host. */
  readonly line: string;
}

/**
 * Asks every path three ways (every origin header naming the attacker, an absolute-form target naming the attacker,
 * then plainly so that whatever the first two left in a cache or a record shows) and returns each answer that
 * named the attacker's host anywhere, a header (Location, Link, Content-Location) or the body.
 */
export async function hostLeaks(url: string, paths: readonly string[]): Promise<HostLeak[]> {
  const leaks: HostLeak[] = [];
  const ways: [string, (path: string) => string][] = [
    ['origin headers', (path) => `GET ${path} HTTP/1.1\r\n${ATTACKER_ORIGIN_HEADERS.join('\r\n')}\r\n`],
    [
      'absolute-form target',
      (path) => `GET http://${ATTACKER_HOST_MARK}-abs.example${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`,
    ],
    ['plain, afterwards', (path) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`],
  ];
  for (const [how, request] of ways) {
    for (const path of paths) {
      const answer = await sendFraming(url, `${request(path)}Connection: close\r\n\r\n`, 5_000);
      const line = answer.text.split('\r\n').find((l) => l.toLowerCase().includes(ATTACKER_HOST_MARK));
      if (line !== undefined) leaks.push({ path, how, status: answer.status, line: line.slice(0, 200) });
    }
  }
  return leaks;
}

/** One answer read off a raw connection, and whether the service closed it after (a kept-alive socket could carry a smuggled request). */
export interface FramingAnswer {
  readonly status: number;
  readonly head: string;
  readonly text: string;
  readonly closed: boolean;
}

/** Sends `bytes` and waits for the service to close the connection (`closed: false` when it kept it open). */
export async function sendFraming(url: string, bytes: string, ms = 3_000): Promise<FramingAnswer> {
  const connection = await rawConnection(url);
  await connection.write(bytes);
  const text = await connection.closed(ms);
  const closed = !text.startsWith('still open: ');
  const body = closed ? text : text.slice('still open: '.length);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(body)?.[1] ?? 0);
  return { status, head: body.split('\r\n\r\n')[0] ?? '', text: body, closed };
}

/** A request whose body is `body` sent under `framing` (the header lines that say how long it is, then the bytes). */
export interface FramedBody {
  readonly headers: readonly string[];
  readonly bytes: string;
}

const chunked = (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

/**
 * Framings two HTTP parsers have read differently (RFC 9112 §6, §11.2; the PortSwigger and "HTTP Garden" sets):
 * a front reading one and the service the other leaves bytes of one client's request at the head of the next.
 * Each must be refused with 400 and the connection closed. `body` is a valid body for the route they are sent to.
 */
export function smugglingFramings(body: string): Record<string, FramedBody> {
  const length = Buffer.byteLength(body);
  return {
    'Content-Length and Transfer-Encoding together': {
      headers: [`Content-Length: ${length + 5}`, 'Transfer-Encoding: chunked'],
      bytes: chunked(body),
    },
    'two different Content-Length headers': {
      headers: [`Content-Length: ${length}`, `Content-Length: ${length + 1}`],
      bytes: `${body}x`,
    },
    'two equal Content-Length headers': {
      headers: [`Content-Length: ${length}`, `Content-Length: ${length}`],
      bytes: body,
    },
    'a Content-Length list': { headers: [`Content-Length: ${length}, ${length}`], bytes: body },
    'a signed Content-Length': { headers: [`Content-Length: +${length}`], bytes: body },
    'Transfer-Encoding: chunked, identity': {
      headers: ['Transfer-Encoding: chunked, identity'],
      bytes: chunked(body),
    },
    'Transfer-Encoding: identity, then a second Transfer-Encoding: chunked': {
      headers: ['Transfer-Encoding: identity', 'Transfer-Encoding: chunked'],
      bytes: chunked(body),
    },
    'Transfer-Encoding: gzip, chunked (a coding no service decodes)': {
      headers: ['Transfer-Encoding: gzip, chunked'],
      bytes: chunked(body),
    },
    'Transfer-Encoding: xchunked': { headers: ['Transfer-Encoding: xchunked'], bytes: chunked(body) },
    'a space before the colon of Transfer-Encoding': {
      headers: ['Transfer-Encoding : chunked'],
      bytes: chunked(body),
    },
    'Transfer-Encoding folded onto an obs-fold line': {
      headers: ['Transfer-Encoding: identity', ' chunked'],
      bytes: chunked(body),
    },
    'a chunk size past 64 bits': {
      headers: ['Transfer-Encoding: chunked'],
      bytes: `fffffffffffffffff${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    },
    'chunks ended by bare LF': {
      headers: ['Transfer-Encoding: chunked'],
      bytes: `${Buffer.byteLength(body).toString(16)}\n${body}\n0\n\n`,
    },
    'a chunk longer than its size': {
      headers: ['Transfer-Encoding: chunked'],
      bytes: `1\r\n${body}\r\n0\r\n\r\n`,
    },
  };
}

/** The request line and headers of a POST to `path` with `headers` (Host first), then `framing`'s lines and bytes. */
export function framedPost(path: string, headers: readonly string[], framing: FramedBody): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${[...headers, ...framing.headers].join('\r\n')}\r\n\r\n${framing.bytes}`;
}

/** Header lines no parser may read two ways: each must be 400 and the connection closed. */
export const MALFORMED_HEADS: Readonly<Record<string, string>> = {
  'a header folded onto the next line (obs-fold)':
    'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: b\r\n c\r\n\r\n',
  'lines ended by bare LF': 'GET /health HTTP/1.1\nHost: 127.0.0.1\n\n',
  'one line ended by bare LF': 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\nX-A: 1\r\n\r\n',
  'a bare CR inside the head': 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\rX-A: 1\r\n\r\n',
  'a NUL in a header value': 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u0000b\r\n\r\n',
  'two Host headers': 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: attacker-host.example\r\n\r\n',
  'a Host that is no host': 'GET /health HTTP/1.1\r\nHost: a b/c\r\n\r\n',
  'Transfer-Encoding on an HTTP/1.0 request kept alive':
    'POST /health HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
};

/** Sockets the test holds open, each a slowloris client; `stop` ends them all. */
export interface SlowClients {
  /** How many of them the service has closed so far. */
  closedCount(): number;
  /** What each received (the service's 408, an earlier answer, or nothing). */
  received(): string[];
  stop(): void;
}

export interface SlowClientPace {
  /** Sent at once on connecting (a whole request, to hold the connection kept alive after it; or nothing). */
  readonly first: string;
  /** Then sent one byte every `everyMs`, its last byte repeated once it is all sent ('' sends nothing more). */
  readonly drip: string;
  readonly everyMs: number;
}

/** Opens `count` connections to `url`, each paced as `pace` says, and keeps them until the service closes them. */
export async function slowClients(url: string, count: number, pace: SlowClientPace): Promise<SlowClients> {
  const { hostname, port } = new URL(url);
  const clients: { socket: Socket; timer: NodeJS.Timeout; text: string; closed: boolean }[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    if (pace.first !== '') socket.write(pace.first);
    let sent = 0;
    const client = {
      socket,
      text: '',
      closed: false,
      timer: setInterval(() => {
        if (client.closed || pace.drip === '') return;
        socket.write(pace.drip[Math.min(sent, pace.drip.length - 1)] ?? ' ');
        sent += 1;
      }, pace.everyMs),
    };
    socket.on('data', (chunk: Buffer) => {
      client.text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      client.closed = true;
      clearInterval(client.timer);
    });
    clients.push(client);
  }
  return {
    closedCount: () => clients.filter((c) => c.closed).length,
    received: () => clients.map((c) => c.text),
    stop: () => {
      for (const c of clients) {
        clearInterval(c.timer);
        c.socket.destroy();
      }
    },
  };
}

/**
 * Sends every smuggling framing (a body made by `bodyFor(name)`, so each is told apart in what was stored) to
 * `path` with `headers`, then every malformed head, and returns one line for each the service did not refuse with
 * 400 and a closed connection.
 */
export async function framingFaults(
  url: string,
  path: string,
  headers: readonly string[],
  bodyFor: (name: string) => string,
): Promise<string[]> {
  const faults: string[] = [];
  const names = Object.keys(smugglingFramings(''));
  for (const name of names) {
    const framing = smugglingFramings(bodyFor(name))[name];
    if (framing === undefined) continue;
    const answer = await sendFraming(url, framedPost(path, headers, framing));
    if (answer.status !== 400 || !answer.closed)
      faults.push(`${name}: ${answer.status}, closed ${answer.closed}`);
  }
  for (const [name, bytes] of Object.entries(MALFORMED_HEADS)) {
    const answer = await sendFraming(url, bytes);
    if (answer.status !== 400 || !answer.closed)
      faults.push(`${name}: ${answer.status}, closed ${answer.closed}`);
  }
  return faults;
}

/** A POST of `body` to `path` carrying every attacker origin header, so that what it stores can be read back plainly. */
export function postWithAttackerOrigin(
  url: string,
  path: string,
  headers: readonly string[],
  body: string,
): Promise<FramingAnswer> {
  const lines = [...ATTACKER_ORIGIN_HEADERS, ...headers, `Content-Length: ${Buffer.byteLength(body)}`];
  return sendFraming(
    url,
    `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`,
    30_000,
  );
}
