// The protocol floors and the engine's own work of `pnpm bench`'s bundles, timed in a fresh process (P116), in
// the state bench/protocol-floor.ts runs in on its own: the bench process, after its load rows, holds every
// bundle, batch body and autocannon's state, and read the engine's own work ×1.5 the stand-alone figure (the
// seventh session's README; which difference caused it is not isolated, P116). Reads the cases as JSON from
// the file named by its argument and prints the figures as JSON; bench/share-bounds.ts starts it.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { selectCryptoBackend } from '@proto/core';
import { instantVerifier } from './engine-cases.ts';
import { floorCaseOf, measureFloorCase, type Wire } from './protocol-floor.ts';

/** One bundle of the run: its request in both wire formats and which wires its rows read. */
export interface ChildCase {
  readonly name: string;
  readonly runs: number;
  readonly json: string;
  /** Base64 of the CBOR body; empty when the bundle has none. */
  readonly cborB64: string;
  readonly wires: readonly Wire[];
}

export interface ChildFloor {
  readonly name: string;
  readonly wire: Wire;
  readonly floorMs: number;
  readonly strictMs: number;
  readonly engineMs: number;
}

const SELF = fileURLToPath(import.meta.url);

/** Times `cases` in a fresh Node process (the same backend choice as the caller's environment). */
export function measureInChild(dir: string, cases: readonly ChildCase[], rounds: number): ChildFloor[] {
  const file = join(dir, 'floor-cases.json');
  writeFileSync(file, JSON.stringify({ rounds, cases }));
  const run = spawnSync(process.execPath, [SELF, file], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (run.status !== 0) throw new Error(`bench/floor-child.ts exited with ${run.status}`);
  return JSON.parse(run.stdout) as ChildFloor[];
}

function main(file: string): void {
  const { rounds, cases } = JSON.parse(readFileSync(file, 'utf8')) as {
    rounds: number;
    cases: ChildCase[];
  };
  const backend = selectCryptoBackend((process.env['CRYPTO_BACKEND'] ?? 'auto') as 'auto');
  const instant = instantVerifier(backend);
  const floors: ChildFloor[] = [];
  for (const c of cases) {
    const request = JSON.parse(c.json) as { signed_bundle: Record<string, unknown> };
    const bodies = { JSON: c.json, CBOR: Buffer.from(c.cborB64, 'base64') };
    const floorCase = floorCaseOf(c.name, c.runs, request, bodies);
    for (const [wire, t] of measureFloorCase(floorCase, c.wires, rounds, instant))
      floors.push({ name: c.name, wire, floorMs: t.floor, strictMs: t.strict, engineMs: t.engine });
  }
  process.stdout.write(JSON.stringify(floors));
}

if (import.meta.main) main(process.argv[2] ?? '');
