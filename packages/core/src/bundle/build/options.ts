// Resolves BuildOptions to concrete settings and rejects impossible combinations (programmer errors).
// DECISIONS D1 (profile), D5/D6 (shape per profile), PROTOCOL §6.4 (session TTL), §6.7 (intervals).
import { type CryptoBackend, selectCryptoBackend } from '../../crypto/index.ts';
import { isSecurityTier, TIER_PROFILES } from '../../policy/index.ts';
import { isProfileName, PROFILES, type ProtocolProfile } from '../../profile.ts';
import type { SecurityTier } from '../types.ts';
import { generateBundleKeys } from './keys.ts';
import { TIER_SAMPLES } from './tiers.ts';
import type { BuildHooks, BuildOptions, BundleKeySet, BundleShape } from './types.ts';

export interface ResolvedOptions {
  readonly version: '1.0' | '2.0';
  readonly profile: ProtocolProfile;
  readonly shape: BundleShape;
  readonly tier: SecurityTier;
  readonly entries: number;
  readonly classicalOnly: boolean;
  readonly dualHash: boolean;
  readonly checkpointInterval: number;
  readonly backend: CryptoBackend;
  readonly principal: BundleKeySet;
  readonly agent: BundleKeySet;
  readonly now: Date;
  readonly sessionTtlSeconds: number;
  readonly random: (length: number) => Uint8Array;
  readonly hooks: BuildHooks;
  readonly emergencyRevocationToken: string | undefined;
}

export function resolveOptions(options: BuildOptions = {}): ResolvedOptions {
  const version = options.version ?? '2.0';
  if (version !== '1.0' && version !== '2.0') fail(`version must be '1.0' or '2.0', got ${String(version)}`);
  const profileName = options.profile ?? 'proto';
  if (!isProfileName(profileName)) fail(`unknown profile ${String(profileName)}`);
  const profile = PROFILES[profileName];
  // D5/D6: SPEC.md's shapes under proto, the SDK's under dcp-ai, unless asked otherwise.
  const shape = options.shape ?? (profileName === 'proto' ? 'spec' : 'sdk');
  if (shape !== 'spec' && shape !== 'sdk') fail(`shape must be 'spec' or 'sdk', got ${String(shape)}`);
  const tier = options.tier ?? 'standard';
  if (!isSecurityTier(tier)) fail(`unknown tier ${String(tier)}`);
  const entries = options.entries ?? 3;
  if (!Number.isSafeInteger(entries) || entries < 1) fail(`entries must be an integer ≥ 1, got ${entries}`);
  const classicalOnly = options.classicalOnly ?? false;
  // PQ checkpoints need an ML-DSA half (D6: a checkpoint without it fails), so an Ed25519-only
  // bundle has none unless a fixture asks for them explicitly.
  const checkpointInterval =
    options.checkpointInterval ?? (classicalOnly ? 0 : TIER_PROFILES[tier].checkpointInterval);
  if (!Number.isSafeInteger(checkpointInterval) || checkpointInterval < 0) {
    fail(`checkpointInterval must be an integer ≥ 0, got ${checkpointInterval}`);
  }
  const sessionTtlSeconds = options.sessionTtlSeconds ?? TIER_SAMPLES[tier].sessionTtlSeconds;
  if (!Number.isSafeInteger(sessionTtlSeconds))
    fail(`sessionTtlSeconds must be an integer, got ${sessionTtlSeconds}`);
  const now = options.now ?? new Date();
  if (Number.isNaN(now.getTime())) fail('now is an invalid Date');
  const backend = options.backend ?? selectCryptoBackend();
  // V1 signs with Ed25519 only, so its keys need no PQ half.
  const wantPq = version === '2.0' && !classicalOnly;
  const principal = options.keys?.principal ?? generateBundleKeys(backend, { pq: wantPq });
  const agent = options.keys?.agent ?? generateBundleKeys(backend, { pq: wantPq });
  if (wantPq && (!principal.pq || !agent.pq)) fail('hybrid bundles need ML-DSA-65 keys in both key sets');
  const emergencyRevocationToken = options.emergencyRevocationToken;
  if (emergencyRevocationToken !== undefined) {
    if (version !== '2.0') fail('emergencyRevocationToken is a V2 passport field');
    if (!/^sha256:[0-9a-f]{64}$/.test(emergencyRevocationToken))
      fail('emergencyRevocationToken must be sha256:<64 lowercase hex>');
  }
  return {
    version,
    profile,
    shape,
    tier,
    entries,
    classicalOnly,
    dualHash: options.dualHash ?? true,
    checkpointInterval,
    backend,
    principal,
    agent,
    now,
    sessionTtlSeconds,
    random: options.random ?? defaultRandom,
    hooks: options.hooks ?? {},
    emergencyRevocationToken,
  };
}

function defaultRandom(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

function fail(message: string): never {
  throw new TypeError(`buildSignedBundle: ${message}`);
}
