// The bundles of a `pnpm bench` run, built and measured in-process before any service starts: sizes,
// signature counts, the raw signature cost and createVerifier().verify() (the first table). Issue 14.
import { performance } from 'node:perf_hooks';
import { buildSignedBundle, type CryptoBackend, createVerifier, type SigningAlg } from '@proto/core';
import { encodeCbor } from '@proto/service-kit';
import { BODY_LIMIT, CASES, CORES, MODE, num } from './bench-settings.ts';
import { callCounts, recordingBackend, type SignatureCall } from './engine-cases.ts';
import { replayRawMs } from './raw-replay.ts';

export interface Prepared {
  readonly name: string;
  /** V1 has no secondary bundle hash: no protocol floor, so no share bound (share-bounds.ts). */
  readonly v1: boolean;
  readonly json: string;
  /** Undefined when the bundle holds a value CBOR does not carry (a float: PROTOCOL §8.2). */
  readonly cbor: Buffer | undefined;
  readonly signatures: Map<SigningAlg, number>;
  /** The bundle's verify() calls, replayed for the raw cost (raw-replay.ts). */
  readonly calls: readonly SignatureCall[];
  /** Signature work per bundle on one core (ms). */
  readonly rawMs: number;
  /** In-process verify() of the parsed request, one thread (ms), for bundles over the body limit. */
  readonly engineMs: number;
}

export const overBodyLimit = (p: Prepared) => Buffer.byteLength(p.json) > BODY_LIMIT;

export function prepare(backend: CryptoBackend): Prepared[] {
  return CASES.map(({ name, options }) => {
    const built = buildSignedBundle({ ...options, backend });
    const request = { signed_bundle: built.signed_bundle };
    const { backend: recording, calls } = recordingBackend(backend);
    const verifier = createVerifier({ mode: MODE, backend: recording });
    if (!verifier.ok) throw new Error(verifier.error.message);
    const verdict = verifier.value.verify(request);
    if (!verdict.verified) throw new Error(`${name} does not verify: ${JSON.stringify(verdict.errors)}`);
    const counts = callCounts(calls);
    const json = JSON.stringify(request);
    const plain = createVerifier({ mode: MODE, backend });
    if (!plain.ok) throw new Error(plain.error.message);
    // The engine and the raw replay alternate, so both see the same machine.
    const rough = replayRawMs(backend, calls, 50);
    const runs = Math.max(3, Math.min(50, Math.round(250 / Math.max(rough, 1))));
    plain.value.verify(JSON.parse(json));
    let engineTotal = 0;
    let rawTotal = 0;
    for (let round = 0; round < 2; round++) {
      rawTotal += replayRawMs(backend, calls, 150);
      const t0 = performance.now();
      for (let i = 0; i < runs; i++) plain.value.verify(JSON.parse(json));
      engineTotal += (performance.now() - t0) / runs;
    }
    rawTotal += replayRawMs(backend, calls, 150);
    const rawMs = rawTotal / 3;
    const engineMs = engineTotal / 2;
    let cbor: Buffer | undefined;
    try {
      cbor = encodeCbor(request);
    } catch {
      cbor = undefined;
    }
    return { name, v1: options.version === '1.0', json, cbor, signatures: counts, calls, rawMs, engineMs };
  });
}

/** The first table: each bundle's size, signatures, raw cost and in-process verify(). */
export function printPrepared(prepared: readonly Prepared[]): void {
  console.log(
    '\nbundle               bytes JSON  bytes CBOR  sigs ed/ml-dsa  raw ms  raw limit all cores/s  in-process verify ms  engine share',
  );
  for (const p of prepared) {
    const sigs = `${p.signatures.get('ed25519') ?? 0}/${p.signatures.get('ml-dsa-65') ?? 0}`;
    console.log(
      `${p.name.padEnd(19)} ${String(Buffer.byteLength(p.json)).padStart(11)} ${(p.cbor ? String(p.cbor.length) : 'n/a').padStart(11)}  ${sigs.padStart(14)} ${num(p.rawMs, 2)}  ${num((1000 / p.rawMs) * CORES, 1, 21)}  ${num(p.engineMs, 2, 20)}  ${num((100 * p.rawMs) / p.engineMs, 0, 10)} %`,
    );
  }
}
