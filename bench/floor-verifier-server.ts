// The end-to-end floor verifier (issue 14, P132): a minimal verifier server, to read the share that a verifier
// doing only what PROTOCOL/SPEC oblige (bench/floor-verifier-work.ts) reaches when served over HTTP by Node on
// this machine under the bench's load, all its costs paid together (two isolates' GC, hand-off, shared caches)
// rather than summed from parts timed alone as the share bounds are (P114, P116, P127).
//
// HTTP is bench/http-floor-server.ts's: the same Node and Fastify, body limit and keep-alive, the body taken as
// bytes, and the service's captured answer (FLOOR_ANSWER_FILE) sent back when every signature verified; a 4xx
// JSON when not. FLOOR_VERIFIER chooses where the verifying runs:
//   threads (default) the main thread does HTTP only and transfers each body's bytes (no copy) by plain
//                     postMessage to the least busy of FLOOR_VERIFIER_WORKERS worker_threads, which verify
//                     and post back the verdict: the cheapest hand-off Node offers, no pool library;
//   piscina           the same threads' work handed off through piscina with the service's pool options
//                     (FLOOR_VERIFIER_POOL, as services/verification pool.ts builds its pool), the body
//                     transferred as the service transfers it (P136);
//   inline            node:cluster, FLOOR_VERIFIER_WORKERS processes each serving and verifying on its own main
//                     thread, the primary only handing out connections.
// FLOOR_VERIFIER_WORK chooses what a thread does with a body (threads and piscina only, P136):
//   floor (default)   the floor's work above;
//   service           the service's own worker task (services/verification worker.ts, `verifyTask`) given the
//                     task the service's route builds for a cache-off JSON /verify and the workerData its pool
//                     hands its threads (FLOOR_VERIFIER_POOL); the main thread reads the verdict from its result.
//                     With piscina this is the service's VerifyPool itself.
//   engine            (threads only) core's verifier alone on the body, built from the service's verifier
//                     options: the engine without the service's task around it.
// FLOOR_VERIFIER_WORKERS defaults to the service's VERIFY_WORKERS default (the machine's cores). Prints
// `listening PORT` once it accepts connections.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { VerifyTaskResult } from '@proto/verification/worker';
import Fastify, { type FastifyReply } from 'fastify';
import type { FloorPoolSettings } from './floor-verifier-pool.ts';
import { serviceTaskOf } from './floor-verifier-task.ts';
import type { FloorThreadReply } from './floor-verifier-thread.ts';
import { type FloorVerdict, floorVerify } from './floor-verifier-work.ts';
import { decodeFloorAnswer, FLOOR_PATH } from './http-floor.ts';

const arrangement = process.env['FLOOR_VERIFIER'] ?? 'threads';
if (arrangement !== 'threads' && arrangement !== 'inline' && arrangement !== 'piscina')
  throw new Error(`FLOOR_VERIFIER: unknown ${arrangement}`);
const work = process.env['FLOOR_VERIFIER_WORK'] ?? 'floor';
if (work !== 'floor' && work !== 'service' && work !== 'engine')
  throw new Error(`FLOOR_VERIFIER_WORK: unknown ${work}`);
if (work === 'service' && arrangement === 'inline')
  throw new Error('FLOOR_VERIFIER_WORK=service runs in threads or piscina, not inline');
if (work === 'engine' && arrangement !== 'threads')
  throw new Error('FLOOR_VERIFIER_WORK=engine runs in threads');
const WORKERS = Number(process.env['FLOOR_VERIFIER_WORKERS'] ?? availableParallelism());
if (!(Number.isInteger(WORKERS) && WORKERS >= 1)) throw new Error('FLOOR_VERIFIER_WORKERS: a count ≥ 1');
/** The service's body limit (SPEC.md Limits) and Fastify's keep-alive, as http-floor-server.ts keeps them. */
const BODY_LIMIT = 1_048_576;
const KEEP_ALIVE_MS = 72_000;
const WORKER_ENTRY = new URL('./floor-verifier-thread.ts', import.meta.url);
const PISCINA_ENTRY = new URL('./floor-verifier-piscina.ts', import.meta.url);

/** The service's pool options and verifier options, for the variants that take a piece of the service. */
function poolSettings(): FloorPoolSettings {
  const text = process.env['FLOOR_VERIFIER_POOL'];
  if (text === undefined) throw new Error(`FLOOR_VERIFIER_POOL is not set (${arrangement}, ${work} work)`);
  return JSON.parse(text) as FloorPoolSettings;
}

/**
 * The verdict in the service's worker result, read as the service's main thread reads it: the answer's
 * summary (or the response) says whether the bundle verified; a refusal names the engine's error codes.
 */
function verdictOfResult(result: VerifyTaskResult): FloorVerdict {
  if (result.kind === 'bad_request')
    return { status: 400, code: 'FLOOR_BAD_REQUEST', message: result.message };
  const [verified, codes] =
    result.kind === 'answered'
      ? [result.answer.summary.verified, result.answer.summary.errorCodes]
      : [result.response.verified, (result.response.error_details ?? []).map((d) => d.code)];
  if (verified) return { status: 200 };
  return { status: 422, code: 'FLOOR_NOT_VERIFIED', message: codes.join(',') };
}

const answerFile = process.env['FLOOR_ANSWER_FILE'];
if (answerFile === undefined) throw new Error('FLOOR_ANSWER_FILE is not set');
const answer = decodeFloorAnswer(readFileSync(answerFile, 'utf8'));

/** Bodies judged in this process (GET /requests): a `--cpu-prof` profile covers them all, warm-up included. */
let judged = 0;

function send(reply: FastifyReply, verdict: FloorVerdict): void {
  judged++;
  if (verdict.status === 200) reply.code(answer.status).headers(answer.headers).send(answer.body);
  else
    reply
      .code(verdict.status)
      .send({ verified: false, error: { code: verdict.code, message: verdict.message } });
}

/** Starts one Fastify server on 127.0.0.1:0 whose POST /verify hands the body's bytes to `judge`. */
async function serve(judge: (body: Buffer, reply: FastifyReply) => void): Promise<number> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, bytes: Buffer, done) =>
    done(null, bytes),
  );
  app.get('/ready', async () => ({}));
  app.get('/requests', async () => String(judged));
  app.post(FLOOR_PATH, (request, reply) => judge(request.body as Buffer, reply));
  await app.ready();
  app.server.keepAliveTimeout = KEEP_ALIVE_MS;
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/** The body's own ArrayBuffer, to transfer; a copy only if the bytes share theirs (a pooled small Buffer). */
function ownBuffer(body: Buffer): ArrayBuffer {
  const buffer = body.buffer as ArrayBuffer;
  if (body.byteOffset === 0 && body.byteLength === buffer.byteLength) return buffer;
  return new Uint8Array(body).buffer;
}

async function threads(): Promise<number> {
  // The service's threads are handed its verifier options and a CPU counter (pool.ts); the engine's, the
  // options; the floor's, nothing.
  const workerData =
    work === 'service'
      ? { ...poolSettings().verifier, threadCpu: new SharedArrayBuffer(8) }
      : work === 'engine'
        ? poolSettings().verifier
        : undefined;
  const workers = Array.from({ length: WORKERS }, () => ({
    thread: new Worker(WORKER_ENTRY, { workerData }),
    busy: 0,
  }));
  const waiting = new Map<number, FastifyReply>();
  let nextId = 0;
  let turn = 0;
  for (const worker of workers) {
    worker.thread.on('message', (done: FloorThreadReply) => {
      worker.busy--;
      const reply = waiting.get(done.id)!;
      waiting.delete(done.id);
      send(reply, 'verdict' in done ? done.verdict : verdictOfResult(done.result));
    });
    worker.thread.on('error', (error) => {
      throw error;
    });
  }
  return serve((body, reply) => {
    // The least busy thread; among equals, the next in turn, so an idle pair shares the load.
    let chosen = workers[turn]!;
    for (let i = 1; i < workers.length; i++) {
      const candidate = workers[(turn + i) % workers.length]!;
      if (candidate.busy < chosen.busy) chosen = candidate;
    }
    turn = (turn + 1) % workers.length;
    chosen.busy++;
    const id = nextId++;
    waiting.set(id, reply);
    const bytes = ownBuffer(body);
    chosen.thread.postMessage({ id, bytes }, [bytes]);
  });
}

/** piscina with the service's options (pool.ts): its VerifyPool itself for the service's work. */
async function piscina(): Promise<number> {
  const settings = poolSettings();
  if (work === 'service') {
    const { VerifyPool } = await import('@proto/verification');
    const pool = new VerifyPool({ ...settings, verifier: settings.verifier });
    return serve((body, reply) => {
      const bytes = ownBuffer(body);
      pool.run(serviceTaskOf(new Uint8Array(bytes)), [bytes]).then(
        (result) => send(reply, verdictOfResult(result)),
        (error: Error) => reply.code(500).send({ verified: false, error: { message: error.message } }),
      );
    });
  }
  // Loaded here only: the plain-threads floor's main thread stays as P132 measured it.
  const { Piscina } = await import('piscina');
  const pool = new Piscina<{ body: Uint8Array }, FloorVerdict>({
    filename: fileURLToPath(PISCINA_ENTRY),
    minThreads: Math.min(settings.minThreads, settings.threads),
    maxThreads: settings.threads,
    maxQueue: settings.maxQueue,
    idleTimeout: settings.idleTimeoutMs,
  });
  return serve((body, reply) => {
    const bytes = ownBuffer(body);
    pool.run({ body: new Uint8Array(bytes) }, { transferList: [bytes] }).then(
      (verdict) => send(reply, verdict),
      (error: Error) => reply.code(500).send({ verified: false, error: { message: error.message } }),
    );
  });
}

if (arrangement === 'threads' || arrangement === 'piscina') {
  const port = arrangement === 'threads' ? await threads() : await piscina();
  process.stdout.write(`listening ${port}\n`);
  process.on('SIGTERM', () => process.exit(0));
} else if (cluster.isPrimary) {
  // Each child listens on port 0; cluster gives them one port and the primary hands out connections.
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === WORKERS) process.stdout.write(`listening ${address.port}\n`);
  });
  cluster.on('exit', (_worker, code, signal) => {
    if (!stopping) throw new Error(`a floor verifier process ended (${code ?? signal})`);
  });
  let stopping = false;
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  process.on('SIGTERM', () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  await serve((body, reply) => send(reply, floorVerify(body)));
  process.on('SIGTERM', () => process.exit(0));
}
