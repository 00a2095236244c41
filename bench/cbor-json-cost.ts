// Issue 14 item 4 in one thread (P131): per builder bundle, the CPU of reading a /verify body and verifying it
// with signatures answered at once, JSON (UTF-8 decode + JSON.parse + strict check, as parseJsonBody does) against
// CBOR (decodeCbor), same bundle, same verifier. Sides alternate in short slices; medians over slices.
// Each side's read alone and verify alone are timed too, so a difference is placed in the decoder or in
// what the engine does with the decoded values. PROFILE_SIDE=json|cbor PROFILE_SECONDS=n loops one side
// of ONLY's case for `node --cpu-prof`.
// Usage: [ONLY=elevated-10] [SLICES=40] pnpm exec node bench/cbor-json-cost.ts
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { buildSignedBundle, parseStrictJsonBytes, selectCryptoBackend } from '@proto/core';
import { encodeCbor } from '@proto/service-kit';
import { decodeCbor } from '@proto/service-kit/cbor';
import { ENGINE_CASES, instantVerifier } from './engine-cases.ts';
import { median } from './median.ts';
import { ownCpuMs } from './proc-stats.ts';

const ONLY = process.env['ONLY'];
const SLICES = Number(process.env['SLICES'] ?? 40);
const PROFILE_SIDE = process.env['PROFILE_SIDE'];
const CASES = ['elevated-10', 'maximum-60'];

const backend = selectCryptoBackend('auto');
const verifier = instantVerifier(backend);

/** The service's JSON read (verify-request.ts parseJsonBody's steps: fatal UTF-8 decode, parse, strict check). */
function readJson(bytes: Uint8Array): unknown {
  const read = parseStrictJsonBytes(bytes);
  if (!read.ok) throw new Error(read.error.message);
  return read.value;
}

for (const { name, options } of ENGINE_CASES) {
  if (!CASES.includes(name) || (ONLY !== undefined && name !== ONLY)) continue;
  const built = buildSignedBundle({ ...options, backend });
  const request = { signed_bundle: built.signed_bundle };
  const json = new Uint8Array(Buffer.from(JSON.stringify(request)));
  const cbor = new Uint8Array(encodeCbor(request));
  // Same request either way (member order aside: the encoder writes CBOR's canonical order), and it verifies.
  if (!isDeepStrictEqual(decodeCbor(cbor), readJson(json)))
    throw new Error(`${name}: CBOR and JSON decode differently`);
  const check = verifier.verify(decodeCbor(cbor) as Record<string, unknown>);
  if (!check.verified) throw new Error(`${name} does not verify: ${JSON.stringify(check.errors)}`);
  const runs = name === 'maximum-60' ? 20 : 60;
  if (PROFILE_SIDE !== undefined) {
    const read = PROFILE_SIDE === 'cbor' ? () => decodeCbor(cbor) : () => readJson(json);
    const until = performance.now() + 1000 * Number(process.env['PROFILE_SECONDS'] ?? 10);
    let n = 0;
    while (performance.now() < until) {
      verifier.verify(read() as Record<string, unknown>);
      n++;
    }
    console.log(`${name} ${PROFILE_SIDE}: ${n} verifications`);
    continue;
  }
  const sides = {
    json: () => verifier.verify(readJson(json) as Record<string, unknown>),
    cbor: () => verifier.verify(decodeCbor(cbor) as Record<string, unknown>),
    jsonRead: () => readJson(json),
    cborRead: () => decodeCbor(cbor),
  };
  const parsedJson = readJson(json) as Record<string, unknown>;
  const parsedCbor = decodeCbor(cbor) as Record<string, unknown>;
  // Verify alone on an already decoded value (the same object each time).
  const verifyOnly = {
    jsonVerify: () => verifier.verify(parsedJson),
    cborVerify: () => verifier.verify(parsedCbor),
  };
  const all = { ...sides, ...verifyOnly };
  const samples: Record<string, number[]> = {};
  for (const key of Object.keys(all)) samples[key] = [];
  for (const f of Object.values(all)) for (let i = 0; i < 5; i++) f();
  const ratio: number[] = [];
  for (let s = 0; s < SLICES; s++) {
    // Alternate the order each slice: A B / B A.
    const keys = Object.keys(all);
    if (s % 2 === 1) keys.reverse();
    for (const key of keys) {
      const f = all[key as keyof typeof all];
      const t0 = ownCpuMs();
      for (let i = 0; i < runs; i++) f();
      samples[key]!.push((ownCpuMs() - t0) / runs);
    }
    ratio.push(samples['cbor']!.at(-1)! / samples['json']!.at(-1)!);
  }
  const m = (k: string) => median(samples[k]!).toFixed(3).padStart(7);
  console.log(
    `${name.padEnd(12)} body JSON ${json.length} B, CBOR ${cbor.length} B; median ms per bundle over ${SLICES} slices of ${runs}`,
  );
  console.log(`  read+verify  json ${m('json')}  cbor ${m('cbor')}  cbor/json ${median(ratio).toFixed(3)}`);
  console.log(`  read alone   json ${m('jsonRead')}  cbor ${m('cborRead')}`);
  console.log(`  verify alone json ${m('jsonVerify')}  cbor ${m('cborVerify')}`);
}
