// The HTTP floor of the verification service's main thread (`pnpm bench`, issue 14, P98): the same Node
// and Fastify, the same body taken as bytes the way POST /verify takes it, and the service's own answer
// (status, headers, body) sent back from memory, nothing else. Its CPU per request is what receiving
// that body and answering costs before any of the service's own work. FLOOR_SERVER=node does the same
// with bare node:http, to show what Fastify adds. Prints `listening PORT` once it accepts connections;
// GET /requests says how many it answered (for a CPU profile's per-request figures).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { decodeFloorAnswer, FLOOR_PATH } from './http-floor.ts';

const answerFile = process.env['FLOOR_ANSWER_FILE'];
if (answerFile === undefined) throw new Error('FLOOR_ANSWER_FILE is not set');
const answer = decodeFloorAnswer(readFileSync(answerFile, 'utf8'));
/**
 * Each answer waits this long, so that 8 connections arrive at the service's own rate: a floor
 * answering at once runs many times faster, where a wake-up of the event loop serves several requests
 * and the per-request cost is not the one the service pays at its rate.
 */
const holdMs = Number(process.env['FLOOR_HOLD_MS'] ?? 0);
const kind = process.env['FLOOR_SERVER'] ?? 'fastify';
/** The service's body limit (SPEC.md Limits), so Fastify takes the same path for the same body. */
const BODY_LIMIT = 1_048_576;
/** Fastify's default, which the service keeps: a load run's connections are never closed as idle. */
const KEEP_ALIVE_MS = 72_000;

/** Requests answered, for a CPU profile's per-request figures (GET /requests, outside any measured run). */
let answered = 0;
const later = (send: () => void) => {
  answered++;
  if (holdMs > 0) setTimeout(send, holdMs);
  else send();
};

/** Fastify writes a Buffer's length itself; node:http would otherwise send the body chunked. */
const nodeHeaders = { ...answer.headers, 'content-length': String(answer.body.length) };

function nodeServer() {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST' || request.url !== FLOOR_PATH) {
      request.resume();
      if (request.url === '/requests') response.writeHead(200).end(String(answered));
      else response.writeHead(request.url === '/ready' ? 200 : 404).end();
      return;
    }
    // As Fastify's `parseAs: 'buffer'` gathers it: the chunks, joined once at the end.
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (Buffer.concat(chunks).length === 0) throw new Error('empty body');
      later(() => response.writeHead(answer.status, nodeHeaders).end(answer.body));
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  return server;
}

async function fastifyServer() {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
  app.removeAllContentTypeParsers();
  for (const type of ['application/json', 'application/cbor']) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (_request, bytes: Buffer, done) =>
      done(null, bytes),
    );
  }
  app.get('/ready', async () => ({}));
  app.get('/requests', async () => String(answered));
  app.post(FLOOR_PATH, (request, reply) => {
    if ((request.body as Buffer).length === 0) throw new Error('empty body');
    later(() => {
      reply.code(answer.status).headers(answer.headers).send(answer.body);
    });
  });
  await app.ready();
  app.server.keepAliveTimeout = KEEP_ALIVE_MS;
  return app.server;
}

const server = kind === 'node' ? nodeServer() : await fastifyServer();
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
// An exit rather than death by the signal, so `--cpu-prof` (BENCH_CPU_PROF) writes the profile.
process.on('SIGTERM', () => process.exit(0));
