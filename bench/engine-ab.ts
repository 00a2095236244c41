// In-process A/B of the engine (issue 14): this checkout's @proto/core against another copy of it
// (COMPARE_CORE=/path/to/other/packages/core/src/index.ts, e.g. `git archive <commit> packages/core`
// unpacked with a node_modules symlink to this checkout's packages/core/node_modules), alternating in
// one process so that a shared machine's load hits both alike. Prints CPU per verification of each and
// the ratio this/other, with signatures answered at once (the engine's own work) and with real ones.
// Any two builds compare this way (a change such as P74's SHA3-256 bundle hash on demand: its commit's
// core against its parent's). Cases from bench/engine-cases.ts: by default the three tiers routine-10,
// elevated-10 and maximum-60; ONLY=<part of a name> picks by name, maximum-1000 and v1-10 included.
// Usage: COMPARE_CORE=… [ROUNDS=6] [ONLY=elevated] [SIGNATURES=instant|real|both] pnpm exec node bench/engine-ab.ts
import { buildSignedBundle, selectCryptoBackend } from '@proto/core';
import { ENGINE_CASES } from './engine-cases.ts';
import { ownCpuMs } from './proc-stats.ts';

type Core = typeof import('@proto/core');

const other = process.env['COMPARE_CORE'];
if (other === undefined) throw new Error('set COMPARE_CORE to the other copy of packages/core/src/index.ts');
const ROUNDS = Number(process.env['ROUNDS'] ?? 6);
const ONLY = process.env['ONLY'];
const MODE = 'hybrid_preferred' as const;
const SIGNATURES = process.env['SIGNATURES'] ?? 'instant';
const INSTANT = SIGNATURES === 'both' ? [true, false] : [SIGNATURES !== 'real'];

const cores: readonly { label: string; core: Core }[] = [
  { label: 'other', core: (await import(other)) as Core },
  { label: 'this', core: await import('@proto/core') },
];

function verifierOf(core: Core, instant: boolean): (value: unknown) => boolean {
  const backend = core.selectCryptoBackend('auto');
  const made = core.createVerifier({
    mode: MODE,
    backend: instant ? { ...backend, verify: () => true } : backend,
  });
  if (!made.ok) throw new Error(made.error.message);
  return (value) => made.value.verify(value).verified;
}

const backend = selectCryptoBackend('auto');
for (const { name, options, runs, ab } of ENGINE_CASES) {
  if (ONLY === undefined ? !ab : !name.includes(ONLY)) continue;
  const parsed: unknown = JSON.parse(
    JSON.stringify({ signed_bundle: buildSignedBundle({ ...options, backend }).signed_bundle }),
  );
  for (const instant of INSTANT) {
    const sides = cores.map(({ label, core }) => ({ label, verify: verifierOf(core, instant), ms: 0 }));
    for (const side of sides) {
      for (let i = 0; i < 5; i++)
        if (!side.verify(parsed)) throw new Error(`${name} does not verify (${side.label})`);
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so a drift in the machine's speed does not favour one.
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const t0 = ownCpuMs();
        for (let i = 0; i < runs; i++) side.verify(parsed);
        side.ms += (ownCpuMs() - t0) / runs;
      }
    }
    const [a, b] = sides.map((s) => s.ms / ROUNDS) as [number, number];
    console.log(
      `${name.padEnd(12)} ${instant ? 'engine only' : 'with sigs  '}  other ${a.toFixed(3)} ms  this ${b.toFixed(3)} ms  this/other ×${(b / a).toFixed(3)}`,
    );
  }
}
