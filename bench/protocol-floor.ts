// What no verifier of these bundles can skip, against what our engine does besides signatures (issue 14's
// "why it cannot go"): for each builder tier and each wire format of POST /verify, in one thread and in the
// same run,
//   floor  = reading the request + SHA-256 and SHA3-256 of the canonical bytes the bundle hashes cover
//            (node:crypto; the canonical bytes themselves are taken as given, so even writing them is left out),
//   strict = reading the request + every step PROTOCOL/SPEC oblige besides signatures, each with Node's
//            cheapest primitive (bench/strict-floor.ts, P116: canonical bytes written, signed messages,
//            hashes, leaves and roots, base64 of signatures and keys; not the whole-bundle hashes),
//   engine = createVerifier().verify() of the request as read, with signatures answered at once.
// Reading the request is JSON.parse for JSON. For CBOR it is the service's own decoder (`decodeCbor`, what
// the verification service's main thread and workers run on an `application/cbor` body, P82): CBOR is only
// transport for the JSON form (PROTOCOL §8.2), so every byte string must come back as base64 text under its
// `_b64` name before anything can be checked, and §8.2's refusals (tags, floats, duplicate keys, …) are
// checked in the same walk. cbor-x and a `_b64` walk after it cost as much with no refusals; cbor-x alone is
// cheaper but leaves the bytes as bytes (P103).
// Rounds alternate the six so drift falls on all. Usage: pnpm exec node bench/protocol-floor.ts [ONLY=tier]
import {
  type BundleHashes,
  buildSignedBundle,
  bundleHashesOf,
  type CryptoBackend,
  canonicalBytesV2,
  canonicalizeV2,
  selectCryptoBackend,
  type Verifier,
} from '@proto/core';
import { decodeCbor, encodeCbor } from '@proto/service-kit/cbor';
import { ENGINE_CASES, type EngineCase, instantVerifier } from './engine-cases.ts';
import { ownCpuMs } from './proc-stats.ts';
import { type StrictFloor, strictSteps, type Writer } from './strict-floor.ts';

export type Wire = 'JSON' | 'CBOR';
export const WIRES: readonly Wire[] = ['JSON', 'CBOR'];

/** One tier's POST /verify request in both wire formats and the canonical bytes its bundle hashes cover. */
export interface FloorCase {
  readonly name: string;
  readonly runs: number;
  readonly bodies: Readonly<Record<Wire, string | Uint8Array>>;
  readonly canonical: Uint8Array;
}

export function floorCase({ name, options, runs }: EngineCase, backend: CryptoBackend): FloorCase {
  const built = buildSignedBundle({ ...options, backend });
  const request = { signed_bundle: built.signed_bundle };
  return floorCaseOf(name, runs, request, { JSON: JSON.stringify(request), CBOR: encodeCbor(request) });
}

/** The floor case of a V2 request already built and encoded (`pnpm bench` measures its own bundles). */
export function floorCaseOf(
  name: string,
  runs: number,
  request: { signed_bundle: Record<string, unknown> },
  bodies: Readonly<Record<Wire, string | Uint8Array>>,
): FloorCase {
  const canonical = canonicalBytesV2({
    bundle: request.signed_bundle.bundle,
    signature: request.signed_bundle.signature,
  });
  if (!canonical.ok) throw new Error(canonical.error.message);
  return { name, runs, bodies, canonical: canonical.value };
}

/** The request as the service reads it from a body of that wire format. */
export function readRequest(wire: Wire, body: string | Uint8Array): unknown {
  if (wire === 'JSON') {
    if (typeof body !== 'string') throw new Error('a JSON body is text');
    return JSON.parse(body);
  }
  if (typeof body === 'string') throw new Error('a CBOR body is bytes');
  return decodeCbor(body);
}

/** The floor's work: returned, so that what a test checks is what the bench times. */
export function floorWork(c: FloorCase, wire: Wire): { request: unknown; hashes: BundleHashes } {
  return { request: readRequest(wire, c.bodies[wire]), hashes: bundleHashesOf(c.canonical) };
}

/**
 * The strict floor's work (P116): the request read from the body, then bench/strict-floor.ts's steps with the
 * canonical bytes written by `write` — JSON.stringify when timed: V8's native writer puts out the same bytes
 * but for key order, so no canonical writer in Node can be cheaper.
 */
export function strictFloorWork(c: FloorCase, wire: Wire, write: Writer = JSON.stringify): StrictFloor {
  return strictSteps(readRequest(wire, c.bodies[wire]), write);
}

/** The engine's work on the same body; `verifier` answers signatures at once. */
export function engineWork(c: FloorCase, wire: Wire, verifier: Verifier) {
  return verifier.verify(readRequest(wire, c.bodies[wire]));
}

/** ms per request, in this process's CPU time. */
export interface FloorTimes {
  readonly floor: number;
  readonly strict: number;
  readonly engine: number;
}

function timed(runs: number, work: () => void): number {
  const t0 = ownCpuMs();
  for (let i = 0; i < runs; i++) work();
  return (ownCpuMs() - t0) / runs;
}

/**
 * The floor and the engine (signatures answered at once) of one case per wire, in this process's CPU
 * time (ms per request), rounds alternating the wires and the order so a machine's drift falls on all.
 */
export function measureFloorCase(
  c: FloorCase,
  wires: readonly Wire[],
  rounds: number,
  instant: Verifier,
): Map<Wire, FloorTimes> {
  const sums = new Map(wires.map((wire) => [wire, { floor: 0, strict: 0, engine: 0 }]));
  for (const wire of wires) {
    if (!engineWork(c, wire, instant).verified) throw new Error(`${c.name} ${wire} does not verify`);
    floorWork(c, wire);
    strictFloorWork(c, wire);
  }
  for (let round = 0; round < rounds; round++) {
    for (const wire of round % 2 === 0 ? wires : [...wires].reverse()) {
      const sum = sums.get(wire)!;
      sum.floor += timed(c.runs * 2, () => floorWork(c, wire));
      sum.strict += timed(c.runs * 2, () => strictFloorWork(c, wire));
      sum.engine += timed(c.runs, () => engineWork(c, wire, instant));
    }
  }
  return new Map(
    [...sums].map(([wire, sum]) => [
      wire,
      { floor: sum.floor / rounds, strict: sum.strict / rounds, engine: sum.engine / rounds },
    ]),
  );
}

/** The canonical writer (dcp-jcs-v1, core's own): what the strict floor's bytes stand in for. */
export const canonicalWriter: Writer = (value) => {
  const text = canonicalizeV2(value);
  if (!text.ok) throw new Error(text.error.message);
  return text.value;
};

function main(): void {
  const ONLY = process.env['ONLY'];
  const ROUNDS = Number(process.env['ROUNDS'] ?? 6);
  const backend = selectCryptoBackend('auto');
  const instant = instantVerifier(backend);
  console.log(
    'ms per request, one thread, CPU time; floor = read + both bundle hashes, strict = read + the steps of P116 (bench/strict-floor.ts)',
  );
  console.log(
    'tier             wire    floor ms  strict floor ms  engine ms (signatures answered at once)  engine ÷ strict  strict bytes written (canonical)',
  );
  for (const engineCase of ENGINE_CASES) {
    if (ONLY !== undefined && !engineCase.name.includes(ONLY)) continue;
    // V1 has no secondary hash; its engine work is in engine-share.ts.
    if (engineCase.options.version === '1.0') continue;
    const c = floorCase(engineCase, backend);
    // JSON.stringify stands in for the canonical writer: the same bytes but for key order (P116).
    const written = strictFloorWork(c, 'JSON').bytesWritten;
    const canonical = strictFloorWork(c, 'JSON', canonicalWriter).bytesWritten;
    const sums = measureFloorCase(c, WIRES, ROUNDS, instant);
    for (const wire of WIRES) {
      const { floor, strict, engine } = sums.get(wire)!;
      console.log(
        `${c.name.padEnd(16)} ${wire} ${floor.toFixed(3).padStart(11)} ${strict.toFixed(3).padStart(16)} ${engine.toFixed(3).padStart(40)} ${`×${(engine / strict).toFixed(1)}`.padStart(16)} ${`${written} (${canonical})`.padStart(33)}`,
      );
    }
  }
}

if (import.meta.main) main();
