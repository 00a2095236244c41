// In-process A/B of the engine (issue 14): this checkout's @proto/core against another copy of it
// (COMPARE_CORE=/path/to/other/packages/core/src/index.ts, e.g. `git archive <commit> packages/core`
// unpacked with a node_modules symlink to this checkout's packages/core/node_modules), alternating in
// one process so that a shared machine's load hits both alike. Prints CPU per verification of each and
// the ratio this/other, with signatures answered at once (the engine's own work) and with real ones.
// Any two builds compare this way (a change such as P74's SHA3-256 bundle hash on demand: its commit's
// core against its parent's). Cases from bench/engine-cases.ts: by default the three tiers routine-10,
// elevated-10 and maximum-60; ONLY=<part of a name> picks by name, maximum-1000 and v1-10 included.
// CONTROL_CORE, a second unpacked copy of the other side's source, adds a same-against-same ratio. A
// control must be a separate copy: one module instance on two sides read ×0.82–0.86 for identical code
// (P108), so a path that loads a side's instance again is refused. Each round rotates the sides' order.
// WIRE=CBOR verifies the request as the service's CBOR decoder returns it (its objects' member order is
// the encoder's, not JSON.parse's), decoded once outside the timing; WIRE=both runs each case both ways.
// Usage: COMPARE_CORE=… [CONTROL_CORE=…] [ROUNDS=6] [ONLY=elevated] [SIGNATURES=instant|real|both]
//        [WIRE=JSON|CBOR|both] [PER_ROUND=1] pnpm exec node bench/engine-ab.ts
import { buildSignedBundle, selectCryptoBackend } from '@proto/core';
import { decodeCbor, encodeCbor } from '@proto/service-kit/cbor';
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
const WIRE = process.env['WIRE'] ?? 'JSON';
const WIRES = WIRE === 'both' ? ['JSON', 'CBOR'] : [WIRE];
if (!WIRES.every((w) => w === 'JSON' || w === 'CBOR')) throw new Error('WIRE is JSON, CBOR or both');

const control = process.env['CONTROL_CORE'];
const cores: { label: string; core: Core }[] = [
  { label: 'other', core: (await import(other)) as Core },
  { label: 'this', core: await import('@proto/core') },
];
if (control !== undefined) cores.push({ label: 'control', core: (await import(control)) as Core });
for (const [i, side] of cores.entries()) {
  const twin = cores.findIndex((c) => c.core === side.core);
  if (twin !== i)
    throw new Error(
      `${side.label} loads the same module instance as ${cores[twin]?.label}: unpack a separate copy`,
    );
}

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
  const request = { signed_bundle: buildSignedBundle({ ...options, backend }).signed_bundle };
  for (const wire of WIRES)
    for (const instant of INSTANT) {
      const parsed: unknown =
        wire === 'JSON' ? JSON.parse(JSON.stringify(request)) : decodeCbor(encodeCbor(request));
      const sides = cores.map(({ label, core }) => ({
        label,
        verify: verifierOf(core, instant),
        ms: 0,
        rounds: [] as number[],
      }));
      for (const side of sides) {
        for (let i = 0; i < 5; i++)
          if (!side.verify(parsed)) throw new Error(`${name} does not verify (${side.label})`);
      }
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate, and reverse every other round, so neither a drift in the machine's speed nor going
        // first or last favours one side.
        const order = sides.map((_, i) => sides[(i + round) % sides.length] as (typeof sides)[number]);
        for (const side of round % 2 === 0 ? order : order.reverse()) {
          const t0 = ownCpuMs();
          for (let i = 0; i < runs; i++) side.verify(parsed);
          const ms = (ownCpuMs() - t0) / runs;
          side.ms += ms;
          side.rounds.push(ms);
        }
      }
      const [a, b, c] = sides.map((s) => s.ms / ROUNDS) as [number, number, number | undefined];
      const controlled =
        c === undefined ? '' : `  control ${c.toFixed(3)} ms  control/other ×${(c / a).toFixed(3)}`;
      console.log(
        `${name.padEnd(12)} ${wire} ${instant ? 'engine only' : 'with sigs  '}  other ${a.toFixed(3)} ms  this ${b.toFixed(3)} ms  this/other ×${(b / a).toFixed(3)}${controlled}`,
      );
      // PER_ROUND=1: every round's figure of each side, for a report that gives them all.
      if (process.env['PER_ROUND'] === '1')
        for (const side of sides)
          console.log(`  ${side.label.padEnd(8)} ${side.rounds.map((ms) => ms.toFixed(3)).join(' ')}`);
    }
}
