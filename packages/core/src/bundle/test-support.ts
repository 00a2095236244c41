// Test-only: shared vectors, a fixed clock, the upstream throwaway keys, and helpers that re-seal a
// mutated upstream bundle so exactly one defect remains. CONTRIBUTING (shared vectors); PROTOCOL §6.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { jcsBytes } from '@proto/testing';
import { compositeSign, type SigningKey, selectCryptoBackend } from '../crypto/index.ts';
import { decodeBase64Strict, encodeBase64 } from '../encoding/index.ts';
import { hexDigest } from '../hash/index.ts';
import { protocolMerkleRoot } from '../merkle/index.ts';
import { type ContextName, contextString, PROFILES, type ProfileName } from '../profile.ts';
import type { Verifier, VerifierOptions } from './types.ts';
import { createVerifier } from './verifier.ts';

/** packages/core/src/bundle → the repository root. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');
export const SHARED_VECTORS_DIR = path.resolve(REPO_ROOT, '../shared/vectors');
export const HAS_SHARED_VECTORS = existsSync(SHARED_VECTORS_DIR);

/** The generated bundles' keys are valid from 2026-05-01 to 2099; this clock keeps them young. */
export const FIXED_NOW = new Date('2026-11-22T12:00:00Z');

export type J = Record<string, unknown>;

export function readShared<T>(relativePath: string): T {
  return JSON.parse(readFileSync(path.join(SHARED_VECTORS_DIR, relativePath), 'utf8')) as T;
}

export function o(value: unknown): J {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  return value as J;
}

export function a(value: unknown): J[] {
  if (!Array.isArray(value)) throw new Error('not an array');
  return value as J[];
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

export const backend = selectCryptoBackend();

export function makeVerifier(options: VerifierOptions = {}): Verifier {
  const result = createVerifier({ clock: () => FIXED_NOW, ...options });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

export const GENERATED_BUNDLES = 'generated/v2_signed_bundles.generated.json';
export const NEGATIVE_RESULTS = 'generated/v2_verifier_negative_results.generated.json';
export const V1_GOLDEN = 'tests/conformance/examples/citizenship_bundle.signed.json';

export type UpstreamName =
  | 'basic_signed_by_rpr_keys'
  | 'dual_hash_checkpoints_signed_by_agent_keys'
  | 'classical_only_bundle';

/** A fresh copy of one generated upstream signed bundle. */
export function upstream(name: UpstreamName): J {
  return clone(o(o(readShared<J>(GENERATED_BUNDLES)[name])['signed_bundle']));
}

export interface PartyKeys {
  readonly classical: SigningKey;
  readonly pq: SigningKey;
}

interface RawKey {
  readonly kid: string;
  readonly alg: 'ed25519' | 'ml-dsa-65';
  readonly secretKeyB64: string;
}

function signingKey(raw: RawKey): SigningKey {
  const secretKey = decodeBase64Strict(raw.secretKeyB64);
  if (secretKey === undefined) throw new Error(`bad secret key ${raw.kid}`);
  return { alg: raw.alg, kid: raw.kid, secretKey };
}

/** The throwaway keys of the generated file: `human` = RPR binding keys, `agent` = passport keys. */
export function upstreamKeys(): { readonly agent: PartyKeys; readonly human: PartyKeys } {
  const keys = o(readShared<J>(GENERATED_BUNDLES)['test_keys']);
  const party = (name: string): PartyKeys => {
    const p = o(keys[name]);
    return { classical: signingKey(p['classical'] as RawKey), pq: signingKey(p['pq'] as RawKey) };
  };
  return { agent: party('agent'), human: party('human') };
}

/** dcp-jcs-v1 bytes from @proto/testing's independent canonical JSON (not core's, which the tests check). */
export const jcs = jcsBytes;

export const sha256Of = (value: unknown): string => `sha256:${hexDigest('sha256', jcs(value))}`;
export const sha3Of = (value: unknown): string => `sha3-256:${hexDigest('sha3-256', jcs(value))}`;

export function sign(
  keys: PartyKeys,
  profile: ProfileName,
  context: ContextName,
  payload: unknown,
  options: { pq?: boolean } = {},
): J {
  const withPq = options.pq ?? true;
  return clone(
    compositeSign(
      backend,
      withPq ? { classical: keys.classical, pq: keys.pq } : { classical: keys.classical },
      contextString(PROFILES[profile], context),
      jcs(payload),
    ),
  ) as unknown as J;
}

const ARTIFACT_CONTEXT: Readonly<Record<string, ContextName>> = {
  responsible_principal_record: 'ResponsiblePrincipal',
  agent_passport: 'AgentPassport',
  intent: 'Intent',
  policy_decision: 'PolicyDecision',
};
const MANIFEST_FIELD: Readonly<Record<string, string>> = {
  responsible_principal_record: 'rpr_hash',
  agent_passport: 'passport_hash',
  intent: 'intent_hash',
  policy_decision: 'policy_hash',
};

export interface ResealOptions {
  readonly profile?: ProfileName;
  /** Who signs the bundle signature: the basic bundle uses `human`, the others `agent`. */
  readonly signer: 'human' | 'agent';
  /** Re-sign these artifacts (RPR with human keys, the others with agent keys). */
  readonly resignArtifacts?: readonly string[];
  /** Recompute every payload_hash and the manifest's four hashes. */
  readonly payloadHashes?: boolean;
  /** Recompute prev_hash (and, unless `primary`, prev_hash_secondary where present) from entry 1 on. */
  readonly rechain?: boolean | 'primary';
  /** Recompute the intent hashes of every entry. */
  readonly intentHashes?: boolean;
  /** Recompute audit roots and counts. */
  readonly roots?: boolean;
  /** Recompute SDK checkpoint roots and re-sign every checkpoint (agent keys). */
  readonly checkpoints?: boolean;
  /** Bundle signature without the PQ half. */
  readonly classicalOnly?: boolean;
}

/**
 * Recomputes what the options name and re-signs the manifest, so a planted defect stays the only
 * one. Order as a producer would: artifacts, entries, checkpoints, manifest, bundle signature.
 */
export function reseal(signed: J, options: ResealOptions): J {
  const profile = options.profile ?? 'dcp-ai';
  const keys = upstreamKeys();
  const bundle = o(signed['bundle']);
  const manifest = o(bundle['manifest']);
  for (const field of options.resignArtifacts ?? []) {
    const envelope = o(bundle[field]);
    envelope['composite_sig'] = sign(
      field === 'responsible_principal_record' ? keys.human : keys.agent,
      profile,
      ARTIFACT_CONTEXT[field]!,
      envelope['payload'],
    );
  }
  if (options.payloadHashes ?? true) {
    for (const field of Object.keys(MANIFEST_FIELD)) {
      const envelope = o(bundle[field]);
      envelope['payload_hash'] = sha256Of(envelope['payload']);
      manifest[MANIFEST_FIELD[field]!] = envelope['payload_hash'];
    }
  }
  const entries = a(bundle['audit_entries']);
  if (options.intentHashes) {
    const intent = o(o(bundle['intent'])['payload']);
    for (const e of entries) {
      e['intent_hash'] = sha256Of(intent);
      if (e['intent_hash_secondary'] !== undefined) e['intent_hash_secondary'] = sha3Of(intent);
    }
  }
  if (options.rechain) {
    for (let i = 1; i < entries.length; i++) {
      entries[i]!['prev_hash'] = sha256Of(entries[i - 1]);
      if (options.rechain !== 'primary' && entries[i]!['prev_hash_secondary'] !== undefined) {
        entries[i]!['prev_hash_secondary'] = sha3Of(entries[i - 1]);
      }
    }
  }
  if (options.roots ?? true) {
    const leaves = entries.map((e) => hexDigest('sha256', jcs(e)));
    manifest['audit_merkle_root'] = `sha256:${protocolMerkleRoot('sha256', leaves) ?? '0'.repeat(64)}`;
    if (manifest['audit_merkle_root_secondary'] !== undefined) {
      const sha3 = entries.map((e) => hexDigest('sha3-256', jcs(e)));
      manifest['audit_merkle_root_secondary'] =
        `sha3-256:${protocolMerkleRoot('sha3-256', sha3) ?? '0'.repeat(64)}`;
    }
    if (manifest['audit_count'] !== undefined) manifest['audit_count'] = entries.length;
  }
  if (options.checkpoints) {
    const ids = entries.map((e) => e['audit_id']);
    for (const cp of a(bundle['pq_checkpoints'] ?? [])) {
      const range = o(cp['event_range']);
      const from = ids.indexOf(range['from_audit_id']);
      const slice = entries.slice(from, from + Number(range['count']));
      cp['merkle_root'] = `sha256:${protocolMerkleRoot(
        'sha256',
        slice.map((e) => hexDigest('sha256', jcs(e))),
      )}`;
      const { composite_sig: _old, ...body } = cp;
      cp['composite_sig'] = sign(keys.agent, profile, 'AuditEvent', body);
    }
  }
  const signature = o(signed['signature']);
  if (signature['manifest_hash'] !== undefined) signature['manifest_hash'] = sha256Of(manifest);
  signature['composite_sig'] = sign(keys[options.signer], profile, 'Bundle', manifest, {
    pq: !(options.classicalOnly ?? false),
  });
  return signed;
}

/** The error codes of a response, in order. */
export function codes(response: { readonly error_details?: readonly { readonly code: string }[] }): string[] {
  return (response.error_details ?? []).map((d) => d.code);
}

/** The same base64 text with its first byte flipped: a tampered signature of the same length. */
export function flipB64(text: unknown): string {
  const bytes = typeof text === 'string' ? decodeBase64Strict(text) : undefined;
  if (bytes === undefined) throw new Error('not base64');
  bytes[0] = bytes[0]! ^ 0x01;
  return encodeBase64(bytes);
}

/** A JSON node's address: member names and array indexes from the root. */
export type JsonPath = readonly (string | number)[];

/** Every node path below `value` (objects and arrays included, `value` itself first), under `prefix`. */
export function jsonPaths(value: unknown, prefix: JsonPath = [], out: JsonPath[] = []): JsonPath[] {
  out.push(prefix);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) jsonPaths(v, [...prefix, i], out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) jsonPaths(v, [...prefix, k], out);
  }
  return out;
}
