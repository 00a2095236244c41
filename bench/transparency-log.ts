// Benchmark of the transparency log: durable appends/s with concurrent clients against the real service, and
// proof latency at 1,000,000 leaves (store filled directly). DECISIONS D18; docs/architecture.md §7 (tessera-like figures).
//
//   pnpm exec node bench/transparency-log.ts [--seconds 5] [--clients 64] [--leaves 1000000]
//                                            [--dialect sqlite|postgres|both]   (--leaves 0: appends only)
//
// postgres uses DATABASE_URL (throw-away schemas, dropped afterwards). Prints one JSON report.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { encodeTileIndex, inclusionProofFromTiles, tilePath } from '@proto/core';
import { openStore, type StoreOptions } from '@proto/store';
import { inclusionAnswer, NodeCache } from '@proto/transparency-log';
import autocannon from 'autocannon';
import { type LaunchedService, launchService, serviceMain, THIS_CHECKOUT } from './launch-service.ts';
import { percentile } from './median.ts';

const MAIN = serviceMain(THIS_CHECKOUT, 'transparency-log');
const TOKEN = randomBytes(24).toString('base64url');

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    clients: { type: 'string', default: '64' },
    leaves: { type: 'string', default: '1000000' },
    dialect: { type: 'string', default: 'sqlite' },
  },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
const LEAVES = Number(values.leaves);

/** A fresh, empty database each time: the service's variables and the same database's store options. */
interface Database {
  readonly env: Record<string, string>;
  readonly store: (dataDir: string) => StoreOptions;
}

interface Target {
  readonly label: string;
  readonly fresh: () => Database;
  readonly cleanup: () => Promise<void>;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    mean_ms: round(mean),
    p50_ms: round(percentile(sorted, 50)),
    p99_ms: round(percentile(sorted, 99)),
  };
}

/**
 * Starts the real service quietly (LOG_LEVEL=warn: request logs would cost as much as the requests) on
 * `dataDir`, as every bench does (launch-service.ts). Its warnings go to stderr, not into the JSON report
 * on stdout. The bench's own DATABASE_URL reaches the service only when the target sets it (postgres).
 */
function startService(dataDir: string, env: Record<string, string>): Promise<LaunchedService> {
  return launchService({
    entry: MAIN,
    name: 'transparency-log',
    dataDir,
    env: { LOG_LEVEL: 'warn', OPERATOR_TOKEN: TOKEN, ...env },
    unset: 'DATABASE_URL' in env ? [] : ['DATABASE_URL'],
    onStdout: (chunk) => process.stderr.write(chunk),
  });
}

/** The part of autocannon's API used here (bench/autocannon.d.ts does not declare `requests`). */
interface CannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
}
interface CannonOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  method?: string;
  requests: Array<{ setupRequest: (request: CannonRequest) => CannonRequest }>;
}
interface CannonResult {
  requests: { total: number; average: number };
  latency: { average: number; p50: number; p99: number };
  non2xx: number;
  errors: number;
  '2xx': number;
  duration: number;
}
const cannon = autocannon as unknown as (options: CannonOptions) => Promise<CannonResult>;

/**
 * `clients` connections, one request in flight each, for `seconds`, through autocannon (raw sockets:
 * a node:http client would spend more CPU than the server on this 2-core machine).
 */
async function load(
  url: string,
  clients: number,
  seconds: number,
  setup: (request: CannonRequest) => CannonRequest,
) {
  const result = await cannon({
    url,
    connections: clients,
    duration: seconds,
    requests: [{ setupRequest: setup }],
  });
  return {
    per_second: Math.round(result['2xx'] / result.duration),
    ok: result['2xx'],
    other: result.non2xx + result.errors,
    latency: { mean_ms: result.latency.average, p50_ms: result.latency.p50, p99_ms: result.latency.p99 },
  };
}

async function benchAppends(target: Target) {
  const dataDir = await mkdtemp(join(tmpdir(), 'tlog-bench-append-'));
  try {
    const service = await startService(dataDir, target.fresh().env);
    const { url } = service;
    let counter = 0;
    const prefix = randomBytes(16).toString('hex');
    const setup = (request: CannonRequest): CannonRequest => {
      const n = (counter++).toString(16).padStart(32, '0');
      request.method = 'POST';
      request.path = '/add';
      request.headers = {
        ...request.headers,
        'content-type': 'application/json',
        authorization: `Bearer ${TOKEN}`,
      };
      request.body = JSON.stringify({ bundle_hash: `sha256:${prefix}${n}` });
      return request;
    };
    await load(url, CLIENTS, 1, setup); // warm-up
    const result = await load(url, CLIENTS, SECONDS, setup);
    await service.stop();
    return result;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function benchProofs(target: Target) {
  const dataDir = await mkdtemp(join(tmpdir(), 'tlog-bench-proof-'));
  const database = target.fresh();
  try {
    const store = await openStore(database.store(dataDir));
    const fillStarted = performance.now();
    const batch = 8192;
    for (let start = 0; start < LEAVES; start += batch) {
      const count = Math.min(batch, LEAVES - start);
      await store.log.append(Array.from({ length: count }, () => randomBytes(32)));
    }
    const fillSeconds = (performance.now() - fillStarted) / 1000;

    const measure = async (nodes: NodeCache, rounds: number) => {
      const samples: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const index = Math.floor(Math.random() * LEAVES);
        const started = performance.now();
        await inclusionAnswer(nodes, index, LEAVES);
        samples.push(performance.now() - started);
      }
      return summary(samples);
    };
    // Every proof reads its ~40 nodes from the database; then with the service's node cache, warmed.
    const uncached = await measure(new NodeCache(store.log, 0), 5000);
    const cache = new NodeCache(store.log, 200_000);
    await measure(cache, 20_000);
    const cached = await measure(cache, 20_000);
    await store.close();

    // The same database through the real service: GET /proof/:i (current tree) with 16 clients.
    const service = await startService(dataDir, database.env);
    const { url } = service;
    const http = await load(url, 16, Math.min(SECONDS, 5), (request) => {
      request.method = 'GET';
      request.path = `/proof/${Math.floor(Math.random() * LEAVES)}`;
      return request;
    });
    // Issue 18: full level-0 tiles (8 KiB, immutable) with 16 clients, then proofs built from tiles over HTTP.
    const fullTiles = Math.floor(LEAVES / 256);
    const tiles =
      fullTiles === 0
        ? undefined
        : await load(url, 16, Math.min(SECONDS, 5), (request) => {
            request.method = 'GET';
            request.path = `/tile/0/${encodeTileIndex(Math.floor(Math.random() * fullTiles))}`;
            return request;
          });
    const tileProofSamples: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await inclusionProofFromTiles(
        Math.floor(Math.random() * LEAVES),
        LEAVES,
        async (level, index, width) => {
          const answer = await fetch(`${url}/${tilePath(level, index, width)}`);
          if (!answer.ok) throw new Error(`tile ${tilePath(level, index, width)}: ${answer.status}`);
          return new Uint8Array(await answer.arrayBuffer());
        },
      );
      tileProofSamples.push(performance.now() - started);
    }
    await service.stop();
    return {
      http_get_full_tile_16_clients: tiles,
      proof_from_tiles_over_http: summary(tileProofSamples),
      leaves: LEAVES,
      fill_leaves_per_second: Math.round(LEAVES / fillSeconds),
      proof_from_store_uncached: uncached,
      proof_from_store_node_cache: cached,
      http_get_proof_16_clients: http,
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const DIALECTS = values.dialect === 'both' ? ['sqlite', 'postgres'] : [values.dialect];
const targets: Target[] = [];
if (DIALECTS.includes('sqlite')) {
  targets.push({
    label: 'sqlite',
    fresh: () => ({ env: {}, store: (dataDir) => ({ dataDir, name: 'transparency-log' }) }),
    cleanup: async () => undefined,
  });
}
const databaseUrl = process.env['DATABASE_URL'];
if (DIALECTS.includes('postgres')) {
  if (!databaseUrl) throw new Error('--dialect postgres needs DATABASE_URL');
  const schemas: string[] = [];
  targets.push({
    label: 'postgres',
    fresh: () => {
      const schema = `bench_tlog_${process.pid}_${schemas.length}`;
      schemas.push(schema);
      return {
        env: { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema },
        store: () => ({ databaseUrl, pgSchema: schema }),
      };
    },
    cleanup: async () => {
      // Connect inside a bench schema: a store opened without one would migrate the default schema.
      const store = await openStore({ databaseUrl, pgSchema: schemas[0] ?? 'bench_tlog_cleanup' });
      for (const schema of schemas) await store.db.schema.dropSchema(schema).ifExists().cascade().execute();
      await store.close();
    },
  });
}

const os = await import('node:os');
const report: Record<string, unknown> = {
  // Other work on the machine changes every figure: the load average is part of the result.
  machine: { cores: os.availableParallelism(), node: process.version, load_average_at_start: os.loadavg() },
  clients: CLIENTS,
  seconds: SECONDS,
};
for (const target of targets) {
  try {
    process.stderr.write(`[bench] ${target.label}: appends with ${CLIENTS} clients for ${SECONDS} s\n`);
    const appends = await benchAppends(target);
    if (LEAVES > 0) {
      process.stderr.write(`[bench] ${target.label}: filling ${LEAVES} leaves, then proofs\n`);
      report[target.label] = { appends, proofs: await benchProofs(target) };
    } else {
      report[target.label] = { appends };
    }
  } finally {
    await target.cleanup();
  }
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
