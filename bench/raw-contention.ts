// What one signature costs when both cores verify at once, against one core alone (issue 14, P127).
// The share's raw cost is replayed on one thread with the other core idle; the service verifies on both cores
// at once. If the VM's two vCPUs share a physical core's resources, or the host lowers clocks with both busy,
// each call costs k times the one-thread CPU under load and no service's share can pass 1/k. This prints k
// per algorithm (each alone, over maximum-60's calls of it) and per bundle, from per-thread CPU time, with
// the JSON side that tells shared core resources from contention for the crypto (bench/contention-replay.ts).
// Usage: flock /work/notes/bench.lock pnpm exec node bench/raw-contention.ts
//   [CONTENTION_ROUNDS=16 undisturbed, of CONTENTION_MAX_ROUNDS=32 at most] [CONTENTION_WINDOW_MS=250] [CONTENTION_TRACE=1] [CRYPTO_BACKEND=auto]
import { buildSignedBundle, createVerifier, type SigningAlg, selectCryptoBackend } from '@proto/core';
import {
  type Contention,
  DISTURBED_CORES,
  measureContention,
  ratiosOf,
  type SideReading,
} from './contention-replay.ts';
import type { BackendPreference } from './contention-signals.ts';
import { ENGINE_CASES, recordingBackend, type SignatureCall } from './engine-cases.ts';

const ROUNDS = Number(process.env['CONTENTION_ROUNDS'] ?? 16);
const MAX_ROUNDS = Number(process.env['CONTENTION_MAX_ROUNDS'] ?? 2 * ROUNDS);
const WINDOW_MS = Number(process.env['CONTENTION_WINDOW_MS'] ?? 250);
const TRACE = process.env['CONTENTION_TRACE'] === '1';
const PREFERENCE = (process.env['CRYPTO_BACKEND'] ?? 'auto') as BackendPreference;
const BUNDLES = ['routine-10', 'elevated-10', 'maximum-60'];
/** The bundle whose calls of one algorithm make that algorithm's case. */
const ALGORITHM_SOURCE = 'maximum-60';

const backend = selectCryptoBackend(PREFERENCE);

/** The verify() calls the engine makes for a builder bundle, in the service's default mode. */
function callsOf(name: string): SignatureCall[] {
  const found = ENGINE_CASES.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no engine case ${name}`);
  const built = buildSignedBundle({ ...found.options, backend });
  const { backend: recording, calls } = recordingBackend(backend);
  const verifier = createVerifier({ mode: 'hybrid_preferred', backend: recording });
  if (!verifier.ok) throw new Error(verifier.error.message);
  if (!verifier.value.verify({ signed_bundle: built.signed_bundle }).verified)
    throw new Error(`${name} does not verify`);
  return calls;
}

interface Case {
  readonly name: string;
  readonly calls: readonly SignatureCall[];
  /** Per call in µs (an algorithm alone), or per bundle in ms. */
  readonly perCall: boolean;
}

const source = callsOf(ALGORITHM_SOURCE);
const algorithmCase = (alg: SigningAlg): Case => ({
  name: `${alg} alone`,
  calls: source.filter((c) => c.alg === alg),
  perCall: true,
});
const cases: Case[] = [
  algorithmCase('ed25519'),
  algorithmCase('ml-dsa-65'),
  ...BUNDLES.map((name) => ({ name, calls: callsOf(name), perCall: false })),
];

const fixed = (n: number, digits: number, width: number) => n.toFixed(digits).padStart(width);
const range = (xs: readonly number[]) =>
  xs.length === 0 ? 'n/a' : `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
const sidesOf = (c: Contention, kind: SideReading['kind']) => c.rounds.flat().filter((s) => s.kind === kind);
const max = (xs: readonly number[]) => (xs.length === 0 ? Number.NaN : Math.max(...xs));
const min = (xs: readonly number[]) => (xs.length === 0 ? Number.NaN : Math.min(...xs));

console.log(
  `raw signatures on both cores (P127): backend ${backend.name}, ${ROUNDS} undisturbed rounds (of ${MAX_ROUNDS} at most) of ${WINDOW_MS} ms a side, sides alternated (one both spin / spin both one); per-thread CPU time`,
);
console.log(
  'case                 calls  unit         one    both  beside JSON   k both  (rounds)       k JSON  (rounds)       1/k  control  cpu/wall both  steal %  rounds kept',
);
for (const c of cases) {
  const contention = await measureContention(c.calls, {
    rounds: ROUNDS,
    maxRounds: MAX_ROUNDS,
    windowMs: WINDOW_MS,
    spin: true,
    preference: PREFERENCE,
  });
  const scale = c.perCall ? 1000 / c.calls.length : 1;
  const all = contention.rounds.flat();
  const kept = `${contention.rounds.length}/${contention.measured.length}`;
  const both = sidesOf(contention, 'both');
  if (contention.rounds.length === 0)
    console.log(
      `${c.name.padEnd(19)} no undisturbed round (${kept}): other processes kept a core busy throughout`,
    );
  else
    console.log(
      [
        c.name.padEnd(19),
        fixed(c.calls.length, 0, 6),
        (c.perCall ? 'µs/call' : 'ms/bundle').padEnd(10),
        fixed(contention.oneMs * scale, 2, 7),
        fixed(contention.bothMs * scale, 2, 7),
        fixed(contention.spinMs * scale, 2, 12),
        fixed(contention.k, 3, 8),
        `(${range(ratiosOf(contention.rounds, 'both'))})`,
        fixed(contention.kSpin, 3, 8),
        `(${range(ratiosOf(contention.rounds, 'spin'))})`,
        `${fixed(100 / contention.k, 1, 6)} %`,
        fixed(contention.control, 3, 8),
        fixed(min(both.map((s) => s.cpuShare)), 3, 14),
        fixed(100 * max(all.map((s) => s.steal)), 2, 8),
        kept.padStart(12),
      ].join(' '),
    );
  if (TRACE)
    for (const [r, sides] of contention.measured.entries())
      console.log(
        `  round ${r}${contention.rounds.includes(sides) ? '' : ' (disturbed)'}: ${sides.map((s) => `${s.kind} ${(s.cpuMs * scale).toFixed(2)} (cpu/wall ${s.cpuShare.toFixed(3)}, steal ${(100 * s.steal).toFixed(1)} %, others ${s.otherCores.toFixed(2)})`).join(' | ')}`,
      );
}
console.log(
  [
    '',
    'one = CPU per call (algorithm) or per bundle of its calls, one thread replaying and the other core idle; both =',
    'the same with two threads replaying at once (each timed over its own window, the other replaying throughout);',
    'beside JSON = one thread replaying while the other spins on JSON.parse/stringify; k = median over the rounds of',
    "both ÷ one of the same round (k JSON likewise); 1/k = the share's ceiling when both cores verify; control = same",
    "against same, the median of each round's one ÷ the next round's one (k within its distance of 1 is noise); cpu/wall both =",
    "the lowest CPU ÷ wall of a both side (under 1: something took the threads' cores); steal = the largest steal share",
    "of /proc/stat's jiffies over a side; rounds kept = rounds in which no side saw other processes keep more than",
    `${DISTURBED_CORES} cores busy (the figures are of those rounds only; CONTENTION_TRACE=1 prints every round).`,
  ].join('\n'),
);
