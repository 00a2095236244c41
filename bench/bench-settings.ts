// What a `pnpm bench` run measures and how, read once from the environment (README, Performance), and the
// builder bundles it measures. Issue 14.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from '@proto/core';
import type { FloorKind } from './http-floor.ts';
import { DEFAULT_BATCHES } from './load-plan.ts';

export const MAIN = fileURLToPath(new URL('../services/verification/src/main.ts', import.meta.url));
/** The same service without the /v2 records and their key directory (the "off" side of the pair). */
export const MAIN_WITHOUT_RECORDS = fileURLToPath(
  new URL('./verification-without-records.ts', import.meta.url),
);
/** The tier measured twice, key directory on and off, in one run (issue 15: "within noise"). */
export const KEY_DIRECTORY_CASE = process.env['BENCH_KEY_DIRECTORY_CASE'] ?? 'v2 elevated (10)';
export const CORES = availableParallelism();
export const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 5);
/** Whole batches per batch row, every one answered (P91); BENCH_DURATION_S times the single-request rows. */
export const BATCHES = Number(process.env['BENCH_BATCHES'] ?? DEFAULT_BATCHES);
export const BACKEND = (process.env['CRYPTO_BACKEND'] ?? 'auto') as 'auto' | 'native' | 'noble';
/** Unset: the service's own default (cores). */
export const WORKERS = process.env['BENCH_WORKERS'];
/** The operator's default level: request logging is part of what an operator pays for. */
export const LOG_LEVEL = process.env['BENCH_LOG_LEVEL'] ?? 'info';
/** A directory: the service runs under `node --cpu-prof` and writes one profile per thread there. */
export const CPU_PROF_DIR = process.env['BENCH_CPU_PROF'];
/** Rounds of a comparison between service variants (each round runs every variant once, in order). */
export const ROUNDS = Number(process.env['BENCH_COMPARE_ROUNDS'] ?? 2);
/**
 * The HTTP floor servers run after every single-request row (bench/http-floor-server.ts, P98):
 * `fastify` (default), `fastify,node` adds bare node:http, `skip` runs none.
 */
export const FLOOR_KINDS: readonly FloorKind[] =
  process.env['BENCH_HTTP_FLOOR'] === 'skip'
    ? []
    : (process.env['BENCH_HTTP_FLOOR'] ?? 'fastify').split(',').map((kind) => {
        const trimmed = kind.trim();
        if (trimmed !== 'fastify' && trimmed !== 'node') throw new Error(`BENCH_HTTP_FLOOR: unknown ${kind}`);
        return trimmed;
      });
/** `skip`: no k (raw on both cores, P127) after each V2 bundle's rows, so no contended bound. */
export const CONTENTION = process.env['BENCH_CONTENTION'] !== 'skip';
/** Undisturbed rounds of one thread against both (300 ms a side) for each bundle's k, of 3× that at most. */
export const CONTENTION_ROUNDS = Number(process.env['BENCH_CONTENTION_ROUNDS'] ?? 8);
/** Seconds of load on the first bundle before the first row, discarded (the JIT's warm-up). */
export const WARMUP_S = Number(process.env['BENCH_WARMUP_S'] ?? 5);
/**
 * Seconds of /verify JSON load on every later bundle before its rows, discarded: its first row (JSON) otherwise
 * carries V8's tiering for the new bundle, which read as JSON costing ×1.03–1.04 of CBOR at elevated-10; 2 s
 * left a third of it (P533).
 */
export const BUNDLE_WARMUP_S = Number(process.env['BENCH_BUNDLE_WARMUP_S'] ?? WARMUP_S);
/** Only the cases whose name contains this text (or one of several, comma-separated). */
const ONLY = process.env['BENCH_ONLY']?.split(',').map((part) => part.trim());
/** The SPEC.md body limit of POST /verify (bundles above it are measured in-process only). */
export const BODY_LIMIT = 1_048_576;
/** Default VERIFY_BATCH_MAX_BYTES: a batch body is filled up to this size (or BATCH_ITEMS items). */
export const BATCH_MAX_BYTES = 8 * 1_048_576;
export const BATCH_ITEMS = 64;
/** The service's default floor; the signature count below is taken under the same mode. */
export const MODE = (process.env['VERIFIER_MODE'] ?? 'hybrid_preferred') as
  | 'classical_only'
  | 'hybrid_preferred'
  | 'hybrid_required';

export interface Case {
  readonly name: string;
  readonly options: BuildOptions;
}

const ALL_CASES: readonly Case[] = [
  { name: 'v2 routine (10)', options: { tier: 'routine', entries: 10 } },
  { name: 'v2 standard (10)', options: { tier: 'standard', entries: 10 } },
  { name: 'v2 elevated (10)', options: { tier: 'elevated', entries: 10 } },
  { name: 'v2 maximum (60)', options: { tier: 'maximum', entries: 60 } },
  { name: 'v2 maximum (1000)', options: { tier: 'maximum', entries: 1000 } },
  { name: 'v1 (10)', options: { version: '1.0', entries: 10 } },
];
export const CASES = ALL_CASES.filter(
  (c) => ONLY === undefined || ONLY.some((part) => c.name.includes(part)),
);

export const DATA_DIR = mkdtempSync(join(tmpdir(), 'proto-bench-'));
const dataDirs = new Map<string, string>();
/** One data directory per service build entry, under this run's DATA_DIR. */
export function dataDirOf(entry: string): string {
  let dir = dataDirs.get(entry);
  if (dir === undefined) {
    dir = join(DATA_DIR, String(dataDirs.size));
    mkdirSync(dir, { recursive: true });
    dataDirs.set(entry, dir);
  }
  return dir;
}

export const num = (n: number, digits = 1, width = 8) => n.toFixed(digits).padStart(width);
