// Our own crypto vectors (packages/core/test-vectors/crypto-vectors.json) under the proto profile.
// CONTRIBUTING (a plain clone tests the same ground), PROTOCOL §3–4, DECISIONS D1 (PROTO.v2.* contexts).

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROFILES } from '../profile.ts';
import type { KeyPair } from './backend.ts';
import { compositeVerify } from './composite.ts';
import { SMALL_ORDER_POINT_ENCODINGS } from './ed25519-strict.ts';
import { createNativeBackend } from './native-backend.ts';
import {
  HAS_SHARED_VECTORS,
  INTEROP_VECTORS_PATH,
  NIST_ED25519_PATH,
  type NistEd25519File,
  REPO_ROOT,
  readSharedJson,
} from './shared-vectors.ts';
import { BACKENDS, otherBackend, registerCryptoVectorSuite } from './test-vector-suite.ts';
import {
  b64,
  buildCryptoVectors,
  buildEd25519Kat,
  buildEd25519Rejections,
  type CryptoVectorFile,
  hexToBytes,
  type OwnVectorFile,
  type VectorPayloads,
} from './test-vectors.ts';

const VECTORS_PATH = path.resolve(REPO_ROOT, 'packages/core/test-vectors/crypto-vectors.json');
const PROTO = PROFILES.proto;

const NONCE = '5e55' + '0123456789abcdef'.repeat(3) + '0123456789ab';
const NONCE_A = 'c'.repeat(64);
const NONCE_B = 'd'.repeat(64);

/** Canonical (dcp-jcs-v1) payloads, written out by hand: sorted keys, strings and integers only. */
const PROTO_PAYLOADS: VectorPayloads = {
  agent_passport: `{"agent_id":"agent-proto-crypto-001","capabilities":["api_call","browse"],"dcp_version":"2.0","risk_tier":"medium","session_nonce":"${NONCE}","status":"active"}`,
  intent: `{"action_type":"send_email","agent_id":"agent-proto-crypto-001","dcp_version":"2.0","estimated_impact":"medium","intent_id":"intent-proto-crypto-001","session_nonce":"${NONCE}"}`,
  audit_event: `{"agent_id":"agent-proto-crypto-001","audit_id":"audit-proto-crypto-001","dcp_version":"2.0","outcome":"success","session_nonce":"${NONCE}"}`,
  session_a: {
    nonce: NONCE_A,
    passport_canonical: `{"agent_id":"agent-proto-session-A","dcp_version":"2.0","session_nonce":"${NONCE_A}","status":"active"}`,
  },
  session_b: {
    nonce: NONCE_B,
    intent_canonical: `{"action_type":"send_email","agent_id":"agent-proto-session-A","dcp_version":"2.0","intent_id":"intent-proto-session-B","session_nonce":"${NONCE_B}"}`,
  },
};

function generate(): OwnVectorFile {
  const native = createNativeBackend();
  const keys = { ed25519: native.generateKeyPair('ed25519'), mlDsa65: native.generateKeyPair('ml-dsa-65') };
  const { _description, ...sections } = buildCryptoVectors(native, PROTO, keys, PROTO_PAYLOADS);
  return {
    _description: `${_description} Regenerate with UPDATE_VECTORS=1 pnpm exec vitest run packages/core/src/crypto.`,
    profile: PROTO.name,
    ...sections,
    ed25519_kat: buildEd25519Kat(native),
    ed25519_rejections: buildEd25519Rejections(native, keys.ed25519, SMALL_ORDER_POINT_ENCODINGS),
  };
}

// Regenerating is explicit (UPDATE_VECTORS=1); otherwise the committed file is the reference.
if (process.env['UPDATE_VECTORS'] === '1')
  writeFileSync(VECTORS_PATH, `${JSON.stringify(generate(), null, 2)}\n`);

function keyPairsOf(file: CryptoVectorFile): { ed25519: KeyPair; mlDsa65: KeyPair } {
  const ed = file.test_keys.ed25519;
  const pq = file.test_keys.ml_dsa_65;
  return {
    ed25519: { alg: 'ed25519', publicKey: b64(ed.public_key_b64), secretKey: b64(ed.secret_key_b64) },
    mlDsa65: { alg: 'ml-dsa-65', publicKey: b64(pq.public_key_b64), secretKey: b64(pq.secret_key_b64) },
  };
}

function payloadsOf(file: CryptoVectorFile): VectorPayloads {
  const text = (key: string) => file.canonicalization[key]?.expected_canonical ?? '';
  const { session_a: a, session_b: b } = file.session_splicing;
  return {
    agent_passport: text('agent_passport'),
    intent: text('intent'),
    audit_event: text('audit_event'),
    session_a: { nonce: a.nonce, passport_canonical: a.passport_canonical },
    session_b: { nonce: b.nonce, intent_canonical: b.intent_canonical },
  };
}

/**
 * The reproducible part of a vector section: ML-DSA signing is hedged, so every PQ signature is
 * replaced by a marker (PQ halves are checked by verification instead); everything else, Ed25519
 * signatures included, must match byte for byte.
 */
function deterministic(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) =>
      key === 'pq' && v !== null && typeof v === 'object' ? { ...v, sig_b64: '<hedged>' } : v,
    ),
  );
}

/** The members both our file and the upstream file carry (upstream adds descriptions and inputs). */
function comparable(file: CryptoVectorFile) {
  const attack = file.attack_vectors;
  const signed = (v: { context: string; payload_key: string; composite_sig: unknown }) => ({
    context: v.context,
    payload_key: v.payload_key,
    composite_sig: v.composite_sig,
  });
  return deterministic({
    test_keys: file.test_keys,
    kid_derivation: file.kid_derivation,
    domain_separated_messages: file.domain_separated_messages,
    all_contexts: {
      payload_canonical: file.domain_separation_all_contexts.payload_canonical,
      dsm_hex: file.domain_separation_all_contexts.dsm_hex,
    },
    ed25519_signatures: file.ed25519_signatures,
    composite_signatures: file.composite_signatures,
    classical_only_signatures: file.classical_only_signatures,
    attack_vectors: {
      stripping_pq_removal: signed(attack.stripping_pq_removal),
      stripping_pq_with_downgrade: signed(attack.stripping_pq_with_downgrade),
      tampered_classical_sig: signed(attack.tampered_classical_sig),
      tampered_pq_sig: signed(attack.tampered_pq_sig),
      cross_context_replay: {
        sign_context: attack.cross_context_replay.sign_context,
        verify_context: attack.cross_context_replay.verify_context,
        payload_key: attack.cross_context_replay.payload_key,
        composite_sig: attack.cross_context_replay.composite_sig,
      },
    },
    session_splicing: {
      session_a: {
        nonce: file.session_splicing.session_a.nonce,
        passport_canonical: file.session_splicing.session_a.passport_canonical,
        passport_composite_sig: file.session_splicing.session_a.passport_composite_sig,
      },
      session_b: {
        nonce: file.session_splicing.session_b.nonce,
        intent_canonical: file.session_splicing.session_b.intent_canonical,
        intent_composite_sig: file.session_splicing.session_b.intent_composite_sig,
      },
    },
  });
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeysDeep((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

describe('packages/core/test-vectors/crypto-vectors.json', () => {
  if (!existsSync(VECTORS_PATH)) {
    it('exists (create it with UPDATE_VECTORS=1)', () => {
      expect(existsSync(VECTORS_PATH)).toBe(true);
    });
    return;
  }
  const file = JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as OwnVectorFile;

  it('is written under the proto profile: every signed context is PROTO.v2.*', () => {
    expect(file.profile).toBe('proto');
    const contexts = [
      ...Object.values(file.ed25519_signatures).map((v) => v.context),
      ...Object.values(file.composite_signatures).map((v) => v.context),
      file.attack_vectors.cross_context_replay.sign_context,
      file.attack_vectors.cross_context_replay.verify_context,
    ];
    for (const context of contexts) expect(context.startsWith(PROTO.contextPrefix)).toBe(true);
    expect(PROTO.contextPrefix).toBe('PROTO.v2.');
  });

  it('holds the generator payloads, each already canonical (sorted keys, no whitespace)', () => {
    expect(payloadsOf(file)).toEqual(PROTO_PAYLOADS);
    const texts = [
      PROTO_PAYLOADS.agent_passport,
      PROTO_PAYLOADS.intent,
      PROTO_PAYLOADS.audit_event,
      PROTO_PAYLOADS.session_a.passport_canonical,
      PROTO_PAYLOADS.session_b.intent_canonical,
    ];
    for (const text of texts) expect(JSON.stringify(sortKeysDeep(JSON.parse(text)))).toBe(text);
  });

  registerCryptoVectorSuite('crypto-vectors.json (proto)', file, PROTO);

  describe.each(BACKENDS)('regenerated with the %s backend', (_name, backend) => {
    it('kids, DSMs, Ed25519 signatures and every classical half match the file byte for byte', () => {
      const rebuilt = buildCryptoVectors(backend, PROTO, keyPairsOf(file), payloadsOf(file));
      expect(comparable(rebuilt)).toEqual(comparable(file));
    });

    it('RFC 8032 tests 1–3 sign to the recorded signatures', () => {
      expect(buildEd25519Kat(backend)).toEqual(file.ed25519_kat);
      for (const kat of file.ed25519_kat) {
        const args = [
          hexToBytes(kat.public_key_hex),
          hexToBytes(kat.message_hex),
          hexToBytes(kat.signature_hex),
        ] as const;
        expect(backend.verify('ed25519', ...args)).toBe(true);
      }
    });

    it('the strictness vectors are reproduced and every one is rejected by both backends', () => {
      expect(buildEd25519Rejections(backend, keyPairsOf(file).ed25519, SMALL_ORDER_POINT_ENCODINGS)).toEqual(
        file.ed25519_rejections,
      );
      expect(file.ed25519_rejections.length).toBe(19);
      for (const v of file.ed25519_rejections) {
        const args = [
          hexToBytes(v.public_key_hex),
          hexToBytes(v.message_hex),
          hexToBytes(v.signature_hex),
        ] as const;
        expect(backend.verify('ed25519', ...args), v.name).toBe(false);
        expect(otherBackend(backend).verify('ed25519', ...args), v.name).toBe(false);
      }
    });
  });
});

describe.skipIf(!HAS_SHARED_VECTORS)(
  'our vector construction, cross-checked against interop_vectors.json',
  () => {
    if (!HAS_SHARED_VECTORS) {
      it('needs ../shared/vectors', () => {});
      return;
    }
    const interop = readSharedJson<CryptoVectorFile>(INTEROP_VECTORS_PATH);
    const native = createNativeBackend();
    const dcp = PROFILES['dcp-ai'];
    const rebuilt = buildCryptoVectors(native, dcp, keyPairsOf(interop), payloadsOf(interop));

    it('rebuilding from the interop keys and payloads under dcp-ai reproduces every deterministic byte', () => {
      expect(comparable(rebuilt)).toEqual(comparable(interop));
    });

    it.each(BACKENDS)('the rebuilt (hedged) PQ halves verify in the %s backend', (_name, backend) => {
      const keys = {
        classical: keyPairsOf(interop).ed25519.publicKey,
        pq: keyPairsOf(interop).mlDsa65.publicKey,
      };
      for (const v of Object.values(rebuilt.composite_signatures)) {
        const body = new TextEncoder().encode(interop.canonicalization[v.payload_key]!.expected_canonical);
        expect(compositeVerify(backend, v.composite_sig, keys, v.context, body).valid).toBe(true);
      }
    });

    it('our RFC 8032 KAT section equals nist-kat/ed25519/vectors.json', () => {
      const rfc = readSharedJson<NistEd25519File>(NIST_ED25519_PATH);
      expect(buildEd25519Kat(native)).toEqual(
        rfc.test_vectors.map((v) => ({
          name: v.name,
          seed_hex: v.secret_key_hex,
          public_key_hex: v.public_key_hex,
          message_hex: v.message_hex,
          signature_hex: v.signature_hex,
        })),
      );
    });
  },
);
