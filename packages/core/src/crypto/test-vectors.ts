// Test-only: the crypto vector file format (the shape of the upstream interop vectors) and its builder.
// PROTOCOL §3–4 and §11 (interop_vectors.json layout); CONTRIBUTING (our own vectors in packages/core/test-vectors).

import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { CONTEXT_NAMES, type ContextName, contextString, type ProtocolProfile } from '../profile.ts';
import type { CryptoBackend, KeyPair } from './backend.ts';
import {
  bytesToBigIntLE,
  concatBytes,
  decodeBase64Strict,
  encodeBase64,
  fromHexStrict,
  littleEndian32,
  toHex,
  utf8,
} from './bytes.ts';
import { type CompositeSignature, compositeSign } from './composite.ts';
import { domainSeparatedMessage } from './domain.ts';
import { ED25519_L } from './ed25519-strict.ts';
import { deriveKid } from './kid.ts';

// Not exported from index.ts: used by the *.test.ts files next to it.

// The synchronous @noble/ed25519 API (used here for secret scalars) needs its SHA-512 provider.
ed.hashes.sha512 = sha512;

export interface VectorKey {
  readonly kid: string;
  readonly alg: string;
  readonly public_key_b64: string;
  readonly secret_key_b64: string;
}

export interface SignedVector {
  readonly context: string;
  readonly payload_key: string;
  readonly composite_sig: CompositeSignature;
}

/** The subset of tests/interop/v2/interop_vectors.json that the crypto layer covers. */
export interface CryptoVectorFile {
  readonly _description?: string;
  readonly test_keys: { readonly ed25519: VectorKey; readonly ml_dsa_65: VectorKey };
  readonly kid_derivation: Readonly<
    Record<string, { readonly alg: string; readonly public_key_b64: string; readonly expected_kid: string }>
  >;
  readonly canonicalization: Readonly<Record<string, { readonly expected_canonical: string }>>;
  readonly domain_separated_messages: {
    readonly passport_dsm: string;
    readonly intent_dsm: string;
    readonly audit_dsm: string;
  };
  readonly domain_separation_all_contexts: {
    readonly payload_canonical: string;
    readonly dsm_hex: Readonly<Record<string, string>>;
  };
  readonly ed25519_signatures: Readonly<
    Record<
      string,
      {
        readonly context: string;
        readonly payload_key: string;
        readonly signer_kid: string;
        readonly sig_b64: string;
      }
    >
  >;
  readonly composite_signatures: Readonly<Record<string, SignedVector>>;
  readonly classical_only_signatures: Readonly<Record<string, SignedVector>>;
  readonly attack_vectors: {
    readonly stripping_pq_removal: SignedVector & { readonly expected_valid: boolean };
    readonly stripping_pq_with_downgrade: SignedVector & {
      readonly expected_classical_valid: boolean;
      readonly expected_pq_valid: boolean;
    };
    readonly tampered_classical_sig: SignedVector & {
      readonly expected_valid: boolean;
      readonly expected_classical_valid: boolean;
      readonly expected_pq_valid: boolean;
    };
    readonly tampered_pq_sig: SignedVector & {
      readonly expected_valid: boolean;
      readonly expected_pq_valid: boolean;
    };
    readonly cross_context_replay: {
      readonly sign_context: string;
      readonly verify_context: string;
      readonly payload_key: string;
      readonly composite_sig: CompositeSignature;
      readonly expected_valid: boolean;
    };
  };
  readonly session_splicing: {
    readonly session_a: {
      readonly nonce: string;
      readonly passport_canonical: string;
      readonly passport_composite_sig: CompositeSignature;
    };
    readonly session_b: {
      readonly nonce: string;
      readonly intent_canonical: string;
      readonly intent_composite_sig: CompositeSignature;
    };
  };
}

/** Extra sections only our own file has (the upstream file keeps these elsewhere or not at all). */
export interface OwnVectorFile extends CryptoVectorFile {
  readonly profile: string;
  /** RFC 8032 §7.1 tests 1–3: seed, public key, message and the exact deterministic signature. */
  readonly ed25519_kat: readonly {
    readonly name: string;
    readonly seed_hex: string;
    readonly public_key_hex: string;
    readonly message_hex: string;
    readonly signature_hex: string;
  }[];
  /** Inputs that both backends must reject under the pinned Ed25519 rule (ed25519-strict.ts). */
  readonly ed25519_rejections: readonly {
    readonly name: string;
    readonly public_key_hex: string;
    readonly message_hex: string;
    readonly signature_hex: string;
  }[];
}

export interface VectorPayloads {
  readonly agent_passport: string;
  readonly intent: string;
  readonly audit_event: string;
  readonly session_a: { readonly nonce: string; readonly passport_canonical: string };
  readonly session_b: { readonly nonce: string; readonly intent_canonical: string };
}

export function b64(text: string): Uint8Array {
  const bytes = decodeBase64Strict(text);
  if (bytes === undefined) throw new Error(`vector field is not strict base64: ${text.slice(0, 24)}…`);
  return bytes;
}

export function hexToBytes(text: string): Uint8Array {
  const bytes = fromHexStrict(text);
  if (bytes === undefined) throw new Error(`vector field is not lowercase hex: ${text.slice(0, 24)}…`);
  return bytes;
}

/** The registry name of a full context string under a profile, or undefined if it is not one of the 18. */
export function contextNameOf(profile: ProtocolProfile, context: string): ContextName | undefined {
  if (!context.startsWith(profile.contextPrefix)) return undefined;
  const name = context.slice(profile.contextPrefix.length);
  return (CONTEXT_NAMES as readonly string[]).includes(name) ? (name as ContextName) : undefined;
}

/** Flips every bit of byte 0 of a base64 signature, as the upstream generator does for tampering. */
export function tamperFirstByte(sigB64: string): string {
  const bytes = Uint8Array.from(b64(sigB64));
  bytes[0] = bytes[0]! ^ 0xff;
  return encodeBase64(bytes);
}

function vectorKey(pair: KeyPair): VectorKey {
  return {
    kid: deriveKid(pair.alg, pair.publicKey),
    alg: pair.alg,
    public_key_b64: encodeBase64(pair.publicKey),
    secret_key_b64: encodeBase64(pair.secretKey),
  };
}

const RFC8032_INPUTS = [
  {
    name: 'rfc8032_test1',
    seed_hex: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    message_hex: '',
  },
  {
    name: 'rfc8032_test2',
    seed_hex: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    message_hex: '72',
  },
  {
    name: 'rfc8032_test3',
    seed_hex: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    message_hex: 'af82',
  },
] as const;

/**
 * Builds every section from keys and canonical payloads, exactly as the upstream generator lays
 * them out: DSMs over the profile's contexts, Ed25519 signatures, composite and classical-only
 * signatures, the five attack vectors and the session-splicing pair. Ed25519 parts are
 * deterministic; ML-DSA parts are hedged, so they are checked by verification, not by bytes.
 */
export function buildCryptoVectors(
  backend: CryptoBackend,
  profile: ProtocolProfile,
  keys: { readonly ed25519: KeyPair; readonly mlDsa65: KeyPair },
  payloads: VectorPayloads,
): CryptoVectorFile {
  const ctx = (name: ContextName) => contextString(profile, name);
  const ed = vectorKey(keys.ed25519);
  const pq = vectorKey(keys.mlDsa65);
  const signingKeys = {
    classical: { alg: 'ed25519' as const, kid: ed.kid, secretKey: keys.ed25519.secretKey },
    pq: { alg: 'ml-dsa-65' as const, kid: pq.kid, secretKey: keys.mlDsa65.secretKey },
  };
  const canonical: Record<'agent_passport' | 'intent' | 'audit_event', string> = {
    agent_passport: payloads.agent_passport,
    intent: payloads.intent,
    audit_event: payloads.audit_event,
  };
  const dsmHex = (name: ContextName, payload: string) =>
    toHex(domainSeparatedMessage(ctx(name), utf8(payload)));
  const plan = [
    { id: 'passport', context: 'AgentPassport', payload_key: 'agent_passport' },
    { id: 'intent', context: 'Intent', payload_key: 'intent' },
    { id: 'audit', context: 'AuditEvent', payload_key: 'audit_event' },
  ] as const;

  const ed25519Signatures: Record<string, CryptoVectorFile['ed25519_signatures'][string]> = {};
  const composites: Record<string, SignedVector> = {};
  for (const item of plan) {
    const dsm = domainSeparatedMessage(ctx(item.context), utf8(canonical[item.payload_key]));
    ed25519Signatures[`${item.id}_ed25519`] = {
      context: ctx(item.context),
      payload_key: item.payload_key,
      signer_kid: ed.kid,
      sig_b64: encodeBase64(backend.sign('ed25519', keys.ed25519.secretKey, dsm)),
    };
    composites[`${item.id}_composite`] = {
      context: ctx(item.context),
      payload_key: item.payload_key,
      composite_sig: compositeSign(
        backend,
        signingKeys,
        ctx(item.context),
        utf8(canonical[item.payload_key]),
      ),
    };
  }
  const passport = composites['passport_composite']!;
  const intent = composites['intent_composite']!;
  const passportSig = passport.composite_sig;
  const pqHalf = passportSig.pq!;

  const allContexts: Record<string, string> = {};
  for (const name of CONTEXT_NAMES) allContexts[name] = dsmHex(name, payloads.intent);

  return {
    _description: `Crypto vectors under the ${profile.name} profile, written by packages/core/src/crypto (same layout as tests/interop/v2/interop_vectors.json). TEST-ONLY keys.`,
    test_keys: { ed25519: ed, ml_dsa_65: pq },
    kid_derivation: {
      ed25519: { alg: ed.alg, public_key_b64: ed.public_key_b64, expected_kid: ed.kid },
      ml_dsa_65: { alg: pq.alg, public_key_b64: pq.public_key_b64, expected_kid: pq.kid },
    },
    canonicalization: {
      agent_passport: { expected_canonical: payloads.agent_passport },
      intent: { expected_canonical: payloads.intent },
      audit_event: { expected_canonical: payloads.audit_event },
    },
    domain_separated_messages: {
      passport_dsm: dsmHex('AgentPassport', payloads.agent_passport),
      intent_dsm: dsmHex('Intent', payloads.intent),
      audit_dsm: dsmHex('AuditEvent', payloads.audit_event),
    },
    domain_separation_all_contexts: { payload_canonical: payloads.intent, dsm_hex: allContexts },
    ed25519_signatures: ed25519Signatures,
    composite_signatures: composites,
    classical_only_signatures: {
      intent_classical_only: {
        context: ctx('Intent'),
        payload_key: 'intent',
        composite_sig: compositeSign(
          backend,
          { classical: signingKeys.classical },
          ctx('Intent'),
          utf8(payloads.intent),
        ),
      },
    },
    attack_vectors: {
      stripping_pq_removal: {
        context: passport.context,
        payload_key: passport.payload_key,
        composite_sig: { classical: passportSig.classical, pq: null, binding: 'pq_over_classical' },
        expected_valid: false,
      },
      stripping_pq_with_downgrade: {
        context: passport.context,
        payload_key: passport.payload_key,
        composite_sig: { classical: passportSig.classical, pq: null, binding: 'classical_only' },
        expected_classical_valid: true,
        expected_pq_valid: false,
      },
      tampered_classical_sig: {
        context: passport.context,
        payload_key: passport.payload_key,
        composite_sig: {
          classical: { ...passportSig.classical, sig_b64: tamperFirstByte(passportSig.classical.sig_b64) },
          pq: pqHalf,
          binding: 'pq_over_classical',
        },
        expected_valid: false,
        expected_classical_valid: false,
        expected_pq_valid: false,
      },
      tampered_pq_sig: {
        context: passport.context,
        payload_key: passport.payload_key,
        composite_sig: {
          classical: passportSig.classical,
          pq: { ...pqHalf, sig_b64: tamperFirstByte(pqHalf.sig_b64) },
          binding: 'pq_over_classical',
        },
        expected_valid: false,
        expected_pq_valid: false,
      },
      cross_context_replay: {
        sign_context: intent.context,
        verify_context: ctx('AuditEvent'),
        payload_key: 'intent',
        composite_sig: intent.composite_sig,
        expected_valid: false,
      },
    },
    session_splicing: {
      session_a: {
        nonce: payloads.session_a.nonce,
        passport_canonical: payloads.session_a.passport_canonical,
        passport_composite_sig: compositeSign(
          backend,
          signingKeys,
          ctx('AgentPassport'),
          utf8(payloads.session_a.passport_canonical),
        ),
      },
      session_b: {
        nonce: payloads.session_b.nonce,
        intent_canonical: payloads.session_b.intent_canonical,
        intent_composite_sig: compositeSign(
          backend,
          signingKeys,
          ctx('Intent'),
          utf8(payloads.session_b.intent_canonical),
        ),
      },
    },
  };
}

/** RFC 8032 §7.1 tests 1–3 signed by `backend` from the RFC's seeds (the file records the result). */
export function buildEd25519Kat(backend: CryptoBackend): OwnVectorFile['ed25519_kat'] {
  return RFC8032_INPUTS.map((input) => {
    const seed = hexToBytes(input.seed_hex);
    const publicKey = ed.getPublicKey(seed);
    const signature = backend.sign('ed25519', concatBytes(seed, publicKey), hexToBytes(input.message_hex));
    return {
      name: input.name,
      seed_hex: input.seed_hex,
      public_key_hex: toHex(publicKey),
      message_hex: input.message_hex,
      signature_hex: toHex(signature),
    };
  });
}

/**
 * Signatures that the pinned rule refuses and that a looser verifier accepts, built with the
 * key's secret scalar so that the verification equation itself holds:
 * - S + L (the same signature with a non-canonical scalar);
 * - each small-order public key with R = identity and S = 0 (passes the cofactored equation for
 *   every message: the signature binds nothing);
 * - each small-order R with S = k·a (cofactored equation holds; for R = identity the cofactorless
 *   one holds too);
 * - a mixed-order R = r·B + T8 with S = r + k·a (cofactored holds, cofactorless does not);
 * - the identity encoded non-canonically (y = p + 1).
 */
export function buildEd25519Rejections(
  backend: CryptoBackend,
  key: KeyPair,
  smallOrderEncodings: readonly string[],
): OwnVectorFile['ed25519_rejections'] {
  const message = utf8('ed25519 strictness vector');
  const messageHex = toHex(message);
  const publicKeyHex = toHex(key.publicKey);
  const signature = backend.sign('ed25519', key.secretKey, message);
  const s = bytesToBigIntLE(signature.subarray(32));
  const a = ed.utils.getExtendedPublicKey(key.secretKey.subarray(0, 32)).scalar;
  const challenge = (r: Uint8Array) =>
    bytesToBigIntLE(sha512(concatBytes(r, key.publicKey, message))) % ED25519_L;
  const identity = smallOrderEncodings[0]!;
  const out: { name: string; public_key_hex: string; message_hex: string; signature_hex: string }[] = [
    {
      name: 'non_canonical_s_plus_l',
      public_key_hex: publicKeyHex,
      message_hex: messageHex,
      signature_hex: toHex(signature.subarray(0, 32)) + toHex(littleEndian32(s + ED25519_L)),
    },
  ];
  smallOrderEncodings.forEach((encoding, i) => {
    out.push({
      name: `small_order_public_key_${i}`,
      public_key_hex: encoding,
      message_hex: messageHex,
      signature_hex: identity + '00'.repeat(32),
    });
    const r = hexToBytes(encoding);
    out.push({
      name: `small_order_r_${i}`,
      public_key_hex: publicKeyHex,
      message_hex: messageHex,
      signature_hex: encoding + toHex(littleEndian32((challenge(r) * a) % ED25519_L)),
    });
  });
  const order8 = ed.Point.fromBytes(hexToBytes(smallOrderEncodings[4]!));
  const nonce = 0x1234567890abcdefn;
  const mixedR = ed.Point.BASE.multiply(nonce).add(order8).toBytes();
  out.push({
    name: 'mixed_order_r',
    public_key_hex: publicKeyHex,
    message_hex: messageHex,
    signature_hex: toHex(mixedR) + toHex(littleEndian32((nonce + challenge(mixedR) * a) % ED25519_L)),
  });
  // y = p + 1 = 2^255 − 18 encodes the identity non-canonically.
  out.push({
    name: 'non_canonical_identity_public_key',
    public_key_hex: `ee${'ff'.repeat(30)}7f`,
    message_hex: messageHex,
    signature_hex: identity + '00'.repeat(32),
  });
  return out;
}
