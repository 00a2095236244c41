// The hostile answers the fronts of the hostile tests give (hostile-front.ts), each named for the attack it is:
// headers and then a drip that never ends, a Content-Length far larger than what follows, a redirect to a host
// the client was never told about. A huge answer is writeHugeAnswer (huge-answer.ts).
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export const JSON_TYPE = { 'content-type': 'application/json' } as const;

/** Answers `status` with `body` (a string is sent as it is, anything else as JSON). */
export function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, JSON_TYPE).end(typeof body === 'string' ? body : JSON.stringify(body));
}

export interface DripOptions {
  readonly status?: number;
  readonly headers?: OutgoingHttpHeaders;
  /** Written at once after the headers: the start of an answer that never ends. */
  readonly first?: string;
  readonly everyMs?: number;
}

/** Headers at once, `first`, then one space every `everyMs` for ever: only a timeout on the whole answer ends it. */
export function dripForever(res: ServerResponse, options: DripOptions = {}): void {
  res.writeHead(options.status ?? 200, options.headers ?? JSON_TYPE);
  if (options.first !== undefined) res.write(options.first);
  const timer = setInterval(() => res.write(' '), options.everyMs ?? 100);
  res.on('close', () => clearInterval(timer));
}

export interface LengthLieOptions {
  readonly status?: number;
  readonly headers?: OutgoingHttpHeaders;
  /** What the Content-Length header declares; 500 MiB unless told. */
  readonly declared?: number;
  /** The few bytes actually sent before nothing more comes. */
  readonly first?: string;
}

export const HALF_A_GIGABYTE = 500 * 1024 * 1024;

/** Declares `declared` bytes, sends `first` and then nothing: a client must refuse on the header alone. */
export function lieAboutLength(res: ServerResponse, options: LengthLieOptions = {}): void {
  res.writeHead(options.status ?? 200, {
    ...(options.headers ?? JSON_TYPE),
    'content-length': String(options.declared ?? HALF_A_GIGABYTE),
  });
  if (options.first !== undefined) res.write(options.first);
}

/** A redirect (307 unless told) to `location`: a client that follows it talks to a host nobody configured. */
export function redirectTo(res: ServerResponse, location: string, status = 307): void {
  res.writeHead(status, { location }).end();
}
