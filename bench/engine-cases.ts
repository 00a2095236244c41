// The builder bundles shared by the in-process engine benches (issue 14): bench/engine-share.ts (engine
// against raw signatures), bench/engine-ab.ts (two builds of core) and bench/protocol-floor.ts; and the
// recorder that learns a bundle's own signature calls, which bench/run.ts replays for its raw cost; and each
// algorithm's cost of one verification, which both of those benches print.
import {
  type BuildOptions,
  type CryptoBackend,
  createVerifier,
  type SigningAlg,
  type Verifier,
} from '@proto/core';

export interface EngineCase {
  readonly name: string;
  readonly options: BuildOptions;
  /** Verifications per timed batch: enough for a batch to outlast the CPU clock's granularity. */
  readonly runs: number;
  /** Part of the default A/B set (the three tiers the targets name). */
  readonly ab: boolean;
}

export const ENGINE_CASES: readonly EngineCase[] = [
  { name: 'routine-10', options: { tier: 'routine', entries: 10 }, runs: 150, ab: true },
  { name: 'elevated-10', options: { tier: 'elevated', entries: 10 }, runs: 150, ab: true },
  { name: 'maximum-60', options: { tier: 'maximum', entries: 60 }, runs: 30, ab: true },
  { name: 'maximum-1000', options: { tier: 'maximum', entries: 1000 }, runs: 4, ab: false },
  { name: 'v1-10', options: { version: '1.0', entries: 10 }, runs: 150, ab: false },
];

/** One verify() call as the engine made it: the bundle's own keys, messages and signatures. */
export interface SignatureCall {
  readonly alg: SigningAlg;
  readonly publicKey: Uint8Array;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

/**
 * `inner` with its verify() calls appended to `calls` as they are made, answered by `inner`: a verification
 * through it tells which signatures a bundle has, with their real lengths, to count or replay them.
 */
export function recordingBackend(inner: CryptoBackend): { backend: CryptoBackend; calls: SignatureCall[] } {
  const calls: SignatureCall[] = [];
  const backend: CryptoBackend = {
    name: inner.name,
    algorithms: inner.algorithms,
    sign: (alg, secretKey, message) => inner.sign(alg, secretKey, message),
    generateKeyPair: (alg) => inner.generateKeyPair(alg),
    verify: (alg, publicKey, message, signature) => {
      calls.push({ alg, publicKey, message, signature });
      return inner.verify(alg, publicKey, message, signature);
    },
  };
  return { backend, calls };
}

/** How many of `calls` each algorithm has. */
export function callCounts(calls: readonly SignatureCall[]): Map<SigningAlg, number> {
  const counts = new Map<SigningAlg, number>();
  for (const c of calls) counts.set(c.alg, (counts.get(c.alg) ?? 0) + 1);
  return counts;
}

/** A verifier whose signature checks all pass at once: what remains is the engine's own work. */
export function instantVerifier(backend: CryptoBackend): Verifier {
  const built = createVerifier({ mode: 'hybrid_preferred', backend: { ...backend, verify: () => true } });
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
}

/**
 * Single-thread cost of one verification per algorithm (ms), same backend, 600-byte message, on `clockMs`:
 * bench/run.ts reads wall time (printed for scale only), bench/engine-share.ts this process's CPU time (its
 * share divides by it). The clock is the caller's so that neither figure changes (P114).
 */
export function signatureCosts(backend: CryptoBackend, clockMs: () => number): Map<SigningAlg, number> {
  const costs = new Map<SigningAlg, number>();
  const message = new Uint8Array(600).map((_, i) => i & 0xff);
  for (const alg of backend.algorithms) {
    const keys = backend.generateKeyPair(alg);
    const signature = backend.sign(alg, keys.secretKey, message);
    for (let i = 0; i < 50; i++) backend.verify(alg, keys.publicKey, message, signature);
    const iterations = alg === 'ed25519' ? 4000 : 1000;
    const t0 = clockMs();
    for (let i = 0; i < iterations; i++) {
      if (!backend.verify(alg, keys.publicKey, message, signature))
        throw new Error(`${alg} self-check failed`);
    }
    costs.set(alg, (clockMs() - t0) / iterations);
  }
  return costs;
}
