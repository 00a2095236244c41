// What no verifier of these bundles can skip, against what our engine does besides signatures (issue 14's
// "why it cannot go"): for each builder tier, in one thread and in the same run,
//   floor  = JSON.parse of the request + SHA-256 and SHA3-256 of the canonical bytes the bundle hashes cover
//            (node:crypto; the canonical bytes themselves are taken as given, so even writing them is left out),
//   engine = createVerifier().verify() of the parsed request with signatures answered at once.
// Rounds alternate the two so drift falls on both. Usage: pnpm exec node bench/protocol-floor.ts [ONLY=tier]
import {
  buildSignedBundle,
  bundleHashesOf,
  canonicalBytesV2,
  createVerifier,
  selectCryptoBackend,
} from '@proto/core';
import { ENGINE_CASES } from './engine-cases.ts';
import { ownCpuMs } from './proc-stats.ts';

const ONLY = process.env['ONLY'];
const ROUNDS = Number(process.env['ROUNDS'] ?? 6);
const backend = selectCryptoBackend('auto');
const instant = createVerifier({ mode: 'hybrid_preferred', backend: { ...backend, verify: () => true } });
if (!instant.ok) throw new Error(instant.error.message);

function timed(runs: number, work: () => void): number {
  const t0 = ownCpuMs();
  for (let i = 0; i < runs; i++) work();
  return (ownCpuMs() - t0) / runs;
}

console.log(
  'tier             floor ms (parse + both bundle hashes)   engine ms, signatures answered at once   engine ÷ floor',
);
for (const { name, options, runs } of ENGINE_CASES) {
  if (ONLY !== undefined && !name.includes(ONLY)) continue;
  if (options.version === '1.0') continue; // V1 has no secondary hash; its engine work is in engine-share.ts
  const built = buildSignedBundle({ ...options, backend });
  const json = JSON.stringify({ signed_bundle: built.signed_bundle });
  const canonical = canonicalBytesV2({
    bundle: built.signed_bundle.bundle,
    signature: built.signed_bundle.signature,
  });
  if (!canonical.ok) throw new Error(canonical.error.message);
  const bytes = canonical.value;
  const floorWork = () => {
    JSON.parse(json);
    bundleHashesOf(bytes);
  };
  const engineWork = () => {
    instant.value.verify(JSON.parse(json));
  };
  floorWork();
  engineWork();
  let floor = 0;
  let engine = 0;
  for (let round = 0; round < ROUNDS; round++) {
    floor += timed(runs * 2, floorWork);
    engine += timed(runs, engineWork);
  }
  floor /= ROUNDS;
  engine /= ROUNDS;
  console.log(
    `${name.padEnd(16)} ${floor.toFixed(3).padStart(38)} ${engine.toFixed(3).padStart(40)} ${`×${(engine / floor).toFixed(1)}`.padStart(16)}`,
  );
}
