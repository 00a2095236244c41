// Chooses the crypto backend once: node:crypto when it has every algorithm, else the noble one.
// docs/architecture.md §2 "Crypto backends" (chosen once at start-up, noble where native ML-DSA is missing).

import { SIGNING_ALGS } from './algorithms.ts';
import type { CryptoBackend } from './backend.ts';
import { createNativeBackend } from './native-backend.ts';
import { createNobleBackend } from './noble-backend.ts';

export type CryptoBackendPreference = 'auto' | 'native' | 'noble';

// One shared instance per kind, so every caller of selectCryptoBackend shares one key cache.
let nativeInstance: CryptoBackend | undefined;
let nobleInstance: CryptoBackend | undefined;

function native(): CryptoBackend {
  nativeInstance ??= createNativeBackend();
  return nativeInstance;
}

function noble(): CryptoBackend {
  nobleInstance ??= createNobleBackend();
  return nobleInstance;
}

/**
 * `auto` (the default) = native when it supports every signing algorithm, else noble. `native` is
 * honoured even when it lacks ML-DSA (its `algorithms` says so, and verification reports
 * ALGORITHM_UNAVAILABLE). Any other value is treated as `auto`; configuration is validated upstream.
 */
export function selectCryptoBackend(preference: CryptoBackendPreference = 'auto'): CryptoBackend {
  if (preference === 'noble') return noble();
  const candidate = native();
  if (preference === 'native') return candidate;
  return SIGNING_ALGS.every((alg) => candidate.algorithms.includes(alg)) ? candidate : noble();
}
