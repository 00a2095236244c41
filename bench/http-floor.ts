// The HTTP floor next to the service (`pnpm bench`, issue 14, P98): the service's answer captured for
// replay by bench/http-floor-server.ts, the floor server started in its own process (its CPU read from
// /proc like the service's), and the arithmetic and line of the floor table.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IMAGE_NODE_OPTIONS } from './image-env.ts';

/** The route the floor answers, the service's own (a bench load's path is used unchanged). */
export const FLOOR_PATH = '/verify';
const SERVER = fileURLToPath(new URL('./http-floor-server.ts', import.meta.url));

export type FloorKind = 'fastify' | 'node';

/** A captured answer: what the floor sends back for every request. */
export interface FloorAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/**
 * Headers the server writes itself for every answer (length, date, connection) are left for it to
 * write; every other header of the service's answer is sent as it came, so the floor's answer has
 * the service's bytes on the wire.
 */
const WRITTEN_BY_THE_SERVER = new Set([
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

export function replayedHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (!WRITTEN_BY_THE_SERVER.has(name.toLowerCase())) kept[name.toLowerCase()] = value;
  }
  return kept;
}

export function encodeFloorAnswer(answer: FloorAnswer): string {
  return JSON.stringify({ ...answer, body: answer.body.toString('base64') });
}

export function decodeFloorAnswer(text: string): FloorAnswer {
  const parsed = JSON.parse(text) as { status: number; headers: Record<string, string>; body: string };
  return { status: parsed.status, headers: parsed.headers, body: Buffer.from(parsed.body, 'base64') };
}

/** One request as the load sends it, answered by the service: the floor replays this answer. */
export async function captureAnswer(
  url: string,
  request: { contentType: string; accept: string; body: string | Buffer },
): Promise<FloorAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': request.contentType, accept: request.accept },
    body: request.body,
  });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: replayedHeaders(response.headers), body };
}

/**
 * How long each answer is held so that `connections` closed-loop connections arrive at
 * `requestsPerSecond` (Little's law: connections = rate × time in the system). 0: answer at once.
 */
export function holdMsFor(connections: number, requestsPerSecond: number): number {
  if (!(requestsPerSecond > 0)) return 0;
  return (connections * 1000) / requestsPerSecond;
}

/** Starts the floor server in its own process, answering `answer` to every POST of the load's path. */
export function startFloor(
  kind: FloorKind,
  answerFile: string,
  answer: FloorAnswer,
  holdMs: number,
  nodeArgs: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  writeFileSync(answerFile, encodeFloorAnswer(answer));
  return startListening(
    SERVER,
    { FLOOR_SERVER: kind, FLOOR_ANSWER_FILE: answerFile, FLOOR_HOLD_MS: String(holdMs) },
    nodeArgs,
  );
}

/**
 * Starts a bench server (`entry`) that prints `listening PORT`, with the Node settings the bench runs the
 * service with and `env` over the caller's environment: the HTTP floor, the floor verifier (P132).
 */
export async function startListening(
  entry: string,
  env: Readonly<Record<string, string>>,
  nodeArgs: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    // As the bench runs the service (run.ts startService), so both heaps are sized alike.
    env: { NODE_OPTIONS: IMAGE_NODE_OPTIONS, ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\d+)/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited (${code}) before listening`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** CPU per request of one side, ms: `all` = every thread of the process, `main` = its main thread. */
export interface ThreadCost {
  readonly all: number;
  readonly main: number;
}

export const FLOOR_HEADER =
  'bundle              mode   floor     service req/s  floor req/s  service main ms  other ms  floor all ms  main ms  other ms  main above floor ms';

const fixed = (n: number, digits: number, width: number) => n.toFixed(digits).padStart(width);

/**
 * One line of the floor table: the service's main thread and its other threads (besides the
 * verification threads, which the floor has no counterpart of) next to the floor's, and the main
 * thread above the floor's main thread.
 */
export function floorRow(
  name: string,
  mode: string,
  kind: FloorKind,
  rates: { service: number; floor: number },
  service: { main: number; other: number },
  floor: ThreadCost,
): string {
  return `${name.padEnd(19)} ${mode.padEnd(6)} ${kind.padEnd(7)} ${fixed(rates.service, 0, 15)} ${fixed(rates.floor, 0, 12)} ${fixed(service.main, 3, 16)} ${fixed(service.other, 3, 9)} ${fixed(floor.all, 3, 13)} ${fixed(floor.main, 3, 8)} ${fixed(floor.all - floor.main, 3, 9)} ${fixed(service.main - floor.main, 3, 20)}`;
}
