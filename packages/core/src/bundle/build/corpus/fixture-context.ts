// Shared fixture material of the corpus: fixed time, seeded keys, deterministic backend, base
// bundle definitions and the helpers that plant one defect and re-sign what must stay valid.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compositeSign, domainSeparatedMessage, selectCryptoBackend } from '../../../crypto/index.ts';
import { concatBytes, decodeBase64Strict, encodeBase64 } from '../../../encoding/index.ts';
import { hexDigest } from '../../../hash/index.ts';
import { type ContextName, contextString, PROFILES, type ProfileName } from '../../../profile.ts';
import { buildSignedBundle } from '../index.ts';
import { compositeOver, jcsBytes, prefixed, type Signer, signerOf } from '../sign.ts';
import type { BuildOptions, BuiltBundle, BundleKeySet, JsonObject } from '../types.ts';
import { deterministicBackend, type KeySeeds, keySetFromSeeds } from './fixture-crypto.ts';

export const CORPUS_DIR = fileURLToPath(new URL('../../../../test-vectors/bundle-corpus/', import.meta.url));

/** Every corpus bundle is built at this instant and verified five minutes later. */
export const CORPUS_NOW = new Date('2026-05-01T12:00:00.000Z');
export const CORPUS_VERIFY_AT = '2026-05-01T12:05:00.000Z';

const seeds = JSON.parse(readFileSync(`${CORPUS_DIR}seeds.json`, 'utf8')) as Record<string, KeySeeds>;
function seeded(name: string): BundleKeySet {
  const entry = seeds[name];
  if (!entry) throw new Error(`seeds.json has no ${name}`);
  return keySetFromSeeds(entry);
}

export const KEYS = { principal: seeded('principal'), agent: seeded('agent'), other: seeded('other') };
export const BACKEND = deterministicBackend(selectCryptoBackend());

/** Reproducible random bytes per label (session nonce, checkpoint ids). */
export function labelledRandom(label: string): (length: number) => Uint8Array {
  let counter = 0;
  return (length) => {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 32) {
      const block = hexDigest('sha256', `bundle-corpus:${label}:${counter++}`);
      for (let j = 0; j < 32 && i + j < length; j++)
        out[i + j] = Number.parseInt(block.slice(j * 2, j * 2 + 2), 16);
    }
    return out;
  };
}

export interface BaseSpec {
  readonly description: string;
  readonly options: Omit<BuildOptions, 'keys' | 'backend' | 'now' | 'random' | 'hooks'>;
}

export const BASES = {
  'v2-proto-spec-standard': {
    description: 'V2, proto profile, spec shape, standard tier, hybrid, 2 entries, 1 checkpoint',
    options: { profile: 'proto', shape: 'spec', tier: 'standard', entries: 2 },
  },
  'v2-proto-sdk-standard': {
    description: 'V2, proto profile, sdk shape, standard tier, hybrid, 2 entries, 1 checkpoint',
    options: { profile: 'proto', shape: 'sdk', tier: 'standard', entries: 2 },
  },
  'v2-dcp-ai-sdk-standard': {
    description: 'V2, dcp-ai profile, sdk shape, standard tier, hybrid, 2 entries, 1 checkpoint',
    options: { profile: 'dcp-ai', shape: 'sdk', tier: 'standard', entries: 2 },
  },
  'v2-dcp-ai-spec-standard': {
    description: 'V2, dcp-ai profile, spec shape, standard tier, hybrid, 2 entries, 1 checkpoint',
    options: { profile: 'dcp-ai', shape: 'spec', tier: 'standard', entries: 2 },
  },
  'v2-proto-spec-routine': {
    description: 'V2, proto, spec shape, routine tier (passport risk low), hybrid, 1 entry',
    options: { profile: 'proto', shape: 'spec', tier: 'routine', entries: 1 },
  },
  'v2-proto-spec-routine-classical': {
    description: 'V2, proto, spec shape, routine tier, Ed25519 only (classical_only binding), 1 entry',
    options: { profile: 'proto', shape: 'spec', tier: 'routine', entries: 1, classicalOnly: true },
  },
  'v2-dcp-ai-sdk-routine-classical': {
    description: 'V2, dcp-ai, sdk shape, routine tier, Ed25519 only, 2 entries',
    options: { profile: 'dcp-ai', shape: 'sdk', tier: 'routine', entries: 2, classicalOnly: true },
  },
  'v2-proto-spec-elevated': {
    description: 'V2, proto, spec shape, elevated tier, hybrid, 2 entries, a checkpoint per entry',
    options: { profile: 'proto', shape: 'spec', tier: 'elevated', entries: 2 },
  },
  'v2-dcp-ai-sdk-maximum': {
    description: 'V2, dcp-ai, sdk shape, maximum tier, hybrid, 2 entries, a checkpoint per entry',
    options: { profile: 'dcp-ai', shape: 'sdk', tier: 'maximum', entries: 2 },
  },
  'v1-standard': {
    description: 'V1 signed bundle (Ed25519, V1 canonical JSON, float risk_score), 2 entries',
    options: { version: '1.0', tier: 'standard', entries: 2 },
  },
} as const satisfies Record<string, BaseSpec>;

export type BaseName = keyof typeof BASES;

export function baseProfile(base: BaseName): ProfileName {
  const options: BaseSpec['options'] = BASES[base].options;
  return options.profile ?? 'proto';
}

/** Builds a base, optionally with extra options (hooks…); the same label gives the same nonce. */
export function buildBase(base: BaseName, extra: Partial<BuildOptions> = {}): BuiltBundle {
  return buildSignedBundle({
    ...BASES[base].options,
    keys: { principal: KEYS.principal, agent: KEYS.agent },
    backend: BACKEND,
    now: CORPUS_NOW,
    random: labelledRandom(base),
    ...extra,
  });
}

/** Tools a case uses to plant a defect and re-sign what must stay valid. */
export interface TamperKit {
  readonly profile: ProfileName;
  context(name: ContextName): string;
  readonly principal: Signer;
  readonly agent: Signer;
  readonly other: Signer;
  /** Composite signature over jcs(value) under a context (profile of the case unless given). */
  sign(signer: Signer, context: ContextName, value: unknown, profile?: ProfileName): JsonObject;
  /**
   * A composite whose Ed25519 half does not verify while its ML-DSA half is valid (it signs
   * DSM ‖ the wrong classical signature, as pq_over_classical defines).
   */
  signWithBadClassical(signer: Signer, context: ContextName, value: unknown): JsonObject;
  /** Re-signs the manifest as it now stands (bundle signature and manifest_hash). */
  resignManifest(signed: JsonObject): void;
  /** Re-signs a checkpoint over its members without composite_sig (agent keys unless given). */
  resignCheckpoint(checkpoint: JsonObject, signer?: Signer): void;
}

/** One bit flipped in the middle of a base64 signature: same length, still strict base64. */
export function flipSignature(sigB64: unknown): string {
  const bytes = decodeBase64Strict(String(sigB64));
  if (!bytes) throw new Error('not a base64 signature');
  const copy = Uint8Array.from(bytes);
  const at = Math.floor(copy.length / 2);
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return encodeBase64(copy);
}

export function tamperKit(profile: ProfileName): TamperKit {
  const signer = (keys: BundleKeySet): Signer => ({ backend: BACKEND, keys, classicalOnly: false });
  const context = (name: ContextName, p: ProfileName = profile) => contextString(PROFILES[p], name);
  const kit: TamperKit = {
    profile,
    context,
    principal: signer(KEYS.principal),
    agent: signer(KEYS.agent),
    other: signer(KEYS.other),
    sign: (s, name, value, p) => compositeOver(s, context(name, p), value, name),
    signWithBadClassical(s, name, value) {
      const wrong = compositeSign(
        s.backend,
        signerOf(s.keys, true),
        context(name),
        jcsBytes({ not: value }, name),
      );
      const badClassical = decodeBase64Strict(wrong.classical.sig_b64) as Uint8Array;
      const dsm = domainSeparatedMessage(context(name), jcsBytes(value, name));
      const pqKey = s.keys.pq;
      if (!pqKey) throw new Error('signWithBadClassical needs a PQ key');
      const pqSig = s.backend.sign('ml-dsa-65', pqKey.secretKey, concatBytes(dsm, badClassical));
      return {
        classical: { ...wrong.classical },
        pq: { alg: 'ml-dsa-65', kid: pqKey.kid, sig_b64: encodeBase64(pqSig) },
        binding: 'pq_over_classical',
      };
    },
    resignManifest(signed) {
      const bundle = signed['bundle'] as JsonObject;
      const signature = signed['signature'] as JsonObject;
      const manifest = bundle['manifest'];
      signature['composite_sig'] = kit.sign(kit.principal, 'Bundle', manifest);
      signature['manifest_hash'] = prefixed('sha256', jcsBytes(manifest, 'manifest'));
    },
    resignCheckpoint(checkpoint, s = kit.agent) {
      const { composite_sig: _old, ...body } = checkpoint;
      checkpoint['composite_sig'] = kit.sign(s, 'AuditEvent', body);
    },
  };
  return kit;
}
