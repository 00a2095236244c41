// Types of the bundle builder: key sets, build options, the built bundle and the fixture hooks.
// SPEC.md "Signed Bundle (V1/V2)", PROTOCOL §5–§6; DECISIONS D1 (profiles), D5 (manifest), D6 (checkpoints).
import type { CryptoBackend } from '../../crypto/index.ts';
import type { ProfileName } from '../../profile.ts';
import type { SecurityTier } from '../types.ts';

/** One signing key with its derived kid (PROTOCOL §4.4). Ed25519 secret = seed ‖ pk (64 B). */
export interface BundleKeyPair<A extends 'ed25519' | 'ml-dsa-65'> {
  readonly alg: A;
  readonly kid: string;
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/** The keys of one party: an Ed25519 key and, unless classical-only, an ML-DSA-65 key. */
export interface BundleKeySet {
  readonly classical: BundleKeyPair<'ed25519'>;
  readonly pq?: BundleKeyPair<'ml-dsa-65'>;
}

/** A JSON object as the builder writes it (plain data, safe to mutate in hooks). */
export type JsonObject = Record<string, unknown>;

/** The four bundle artifacts, by their bundle member names. */
export interface ArtifactSet<T> {
  responsible_principal_record: T;
  agent_passport: T;
  intent: T;
  policy_decision: T;
}

/**
 * Mutation points for test fixtures (the bundle corpus): each hook may change the objects in
 * place; everything computed later (hashes, chains, roots, signatures) then covers the change,
 * so one defect can be planted without disturbing any other check.
 */
export interface BuildHooks {
  /** Artifact payloads before they are hashed and signed (V1: before the inline signatures). */
  readonly payloads?: (payloads: ArtifactSet<JsonObject>) => void;
  /** V2: signed artifacts ({payload, payload_hash, composite_sig}) before the manifest reads them. */
  readonly artifacts?: (artifacts: ArtifactSet<JsonObject>) => void;
  /** Each audit entry before it is chained: prev_hash fields are not set yet. */
  readonly entry?: (entry: JsonObject, index: number) => void;
  /** All entries after chaining, before roots and checkpoints are computed. */
  readonly entries?: (entries: JsonObject[]) => void;
  /** V2: the signed checkpoints, before the manifest lists them. */
  readonly checkpoints?: (checkpoints: JsonObject[]) => void;
  /** V2: the manifest before it is hashed and signed. */
  readonly manifest?: (manifest: JsonObject) => void;
  /** V1: the bundle before bundle_hash, merkle_root and the signature are computed. */
  readonly bundle?: (bundle: JsonObject) => void;
  /** The finished signed bundle, last (bundleHash is computed after this). */
  readonly signedBundle?: (signedBundle: JsonObject) => void;
}

export type BundleShape = 'spec' | 'sdk';

export interface BuildOptions {
  /** Bundle version; default '2.0'. */
  readonly version?: '1.0' | '2.0';
  /** Protocol profile (contexts); default 'proto' (D1). */
  readonly profile?: ProfileName;
  /** Manifest/checkpoint/signature shape; default 'spec' under proto, 'sdk' under dcp-ai (D5, D6). */
  readonly shape?: BundleShape;
  /** Security tier the intent is chosen to resolve to (PROTOCOL §6.7); default 'standard'. */
  readonly tier?: SecurityTier;
  /** Number of audit entries (≥ 1); default 3. */
  readonly entries?: number;
  /** Sign with Ed25519 only (binding classical_only, pq null). */
  readonly classicalOnly?: boolean;
  /** Write the SHA3-256 chain fields and root; default true. */
  readonly dualHash?: boolean;
  /**
   * Entries per PQ checkpoint; default the tier's interval (50/10/1/1), or 0 when classicalOnly
   * (a checkpoint without its ML-DSA half fails verification, D6); 0 = no checkpoints.
   */
  readonly checkpointInterval?: number;
  readonly keys?: { readonly principal?: BundleKeySet; readonly agent?: BundleKeySet };
  readonly backend?: CryptoBackend;
  /** Clock reading used for every timestamp; default new Date(). */
  readonly now?: Date;
  /** Session lifetime; default per tier (PROTOCOL §6.4: 86400/14400/3600/900 s). */
  readonly sessionTtlSeconds?: number;
  /** Source of random bytes (session nonce, checkpoint ids); default crypto.getRandomValues. */
  readonly random?: (length: number) => Uint8Array;
  /** Fixture hooks (see BuildHooks); not for production bundles. */
  readonly hooks?: BuildHooks;
  /**
   * V2: the passport's `emergency_revocation_token`, `sha256:<hex>` of the 32-byte secret (PROTOCOL §9.5);
   * default none.
   */
  readonly emergencyRevocationToken?: string;
}

export interface BuiltBundle {
  readonly signed_bundle: Record<string, unknown>;
  readonly keys: { readonly principal: BundleKeySet; readonly agent: BundleKeySet };
  /** V1: signature.bundle_hash; V2: 'sha256:' + hex SHA-256(jcs({bundle, signature})), uncovered members set aside (P247). */
  readonly bundleHash: string;
  /** P62: 'sha3-256:' + hex SHA3-256 of the same canonical bytes: what an anchor's bundle_hash_secondary is. */
  readonly bundleHashSecondary: string;
}
