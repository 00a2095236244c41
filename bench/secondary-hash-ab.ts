// P74 A/B in one process: an analysis that also hashes the whole bundle with SHA3-256 (every verification
// before P74; now only for a receipt naming bundle_hash_secondary) against the default one, alternating,
// with real signatures and with signatures answered at once (the engine's own cost). A same-against-same
// pair shows the noise. Engine CPU per verification (analyze + finalize of a parsed request).
// Usage: pnpm exec node bench/secondary-hash-ab.ts   (ROUNDS=n, ONLY=tier-name)
import {
  type AnalyzeOptions,
  type BuildOptions,
  buildSignedBundle,
  createVerifier,
  selectCryptoBackend,
  type Verifier,
} from '@proto/core';

const MODE = 'hybrid_preferred' as const;
const ROUNDS = Number(process.env['ROUNDS'] ?? 4);
const ONLY = process.env['ONLY'];
const CASES: readonly { name: string; options: BuildOptions; runs: number }[] = [
  { name: 'routine-10', options: { tier: 'routine', entries: 10 }, runs: 60 },
  { name: 'elevated-10', options: { tier: 'elevated', entries: 10 }, runs: 60 },
  { name: 'maximum-60', options: { tier: 'maximum', entries: 60 }, runs: 12 },
];
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const backend = selectCryptoBackend('auto');
const real = createVerifier({ mode: MODE, backend });
const instant = createVerifier({ mode: MODE, backend: { ...backend, verify: () => true } });
if (!real.ok || !instant.ok) throw new Error('verifier');

const SIDES: readonly { label: string; options: AnalyzeOptions }[] = [
  { label: 'before (SHA-256 + SHA3-256)', options: { bundleHashSecondary: true } },
  { label: 'after (SHA-256 only)', options: {} },
  { label: 'after again (noise)', options: {} },
];

function perVerification(
  verifier: Verifier,
  request: unknown,
  options: AnalyzeOptions,
  runs: number,
): number {
  const now = new Date();
  const t0 = cpuMs();
  for (let i = 0; i < runs; i++) verifier.finalize(verifier.analyze(request, options), now);
  return (cpuMs() - t0) / runs;
}

for (const { name, options, runs } of CASES) {
  if (ONLY !== undefined && !name.includes(ONLY)) continue;
  const built = buildSignedBundle({ ...options, backend });
  const request = JSON.parse(JSON.stringify({ signed_bundle: built.signed_bundle })) as unknown;
  if (!real.value.verify(request).verified) throw new Error(`${name} does not verify`);
  for (const [kind, verifier] of [
    ['signatures answered at once', instant.value],
    ['real signatures', real.value],
  ] as const) {
    const totals = SIDES.map(() => 0);
    for (const side of SIDES) perVerification(verifier, request, side.options, 3);
    for (let round = 0; round < ROUNDS; round++) {
      // Each round in a rotated order, so drift does not always favour the same side.
      for (let k = 0; k < SIDES.length; k++) {
        const s = (k + round) % SIDES.length;
        totals[s] = (totals[s] ?? 0) + perVerification(verifier, request, SIDES[s]!.options, runs);
      }
    }
    const [before = 0, after = 0, again = 0] = totals.map((t) => t / ROUNDS);
    console.log(
      `${name.padEnd(12)} ${kind.padEnd(28)} before ${before.toFixed(3)} ms  after ${after.toFixed(3)} ms  ×${(after / before).toFixed(3)}  (after/after again ×${(after / again).toFixed(3)})`,
    );
  }
}
