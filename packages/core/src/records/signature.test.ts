// Tests for record signatures: records signed the upstream way verify; tampering, wrong context, swapped kid,
// another agent's key do not. PROTOCOL §3 (contexts, payload rule for flat /v2 records), §4.2 (composite layout).

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalizeV2 } from '../canonical/index.ts';
import { encodeBase64 } from '../crypto/bytes.ts';
import type { SigningKey } from '../crypto/composite.ts';
import { deriveKid } from '../crypto/kid.ts';
import { createNativeBackend } from '../crypto/native-backend.ts';
import { PROFILES } from '../profile.ts';
import {
  type PublicKeyEntry,
  RECORD_SIGNATURE_RULES,
  recordSubjects,
  signRecord,
  verifyRecordSignature,
} from './signature.ts';

const backend = createNativeBackend();
const EXAMPLES = new URL('../../test-vectors/schema-examples/', import.meta.url);

function agentKeys() {
  const ed = backend.generateKeyPair('ed25519');
  const pq = backend.generateKeyPair('ml-dsa-65');
  const classical: SigningKey = {
    alg: 'ed25519',
    kid: deriveKid('ed25519', ed.publicKey),
    secretKey: ed.secretKey,
  };
  const pqKey: SigningKey = {
    alg: 'ml-dsa-65',
    kid: deriveKid('ml-dsa-65', pq.publicKey),
    secretKey: pq.secretKey,
  };
  const directory = new Map<string, PublicKeyEntry>([
    [classical.kid, { alg: 'ed25519', publicKey: ed.publicKey }],
    [pqKey.kid, { alg: 'ml-dsa-65', publicKey: pq.publicKey }],
  ]);
  return { classical, pq: pqKey, directory };
}

const alice = agentKeys();
const mallory = agentKeys();
const lookupIn = (directory: Map<string, PublicKeyEntry>) => (kid: string) => directory.get(kid);

/**
 * Independent of signRecord: builds the signature byte by byte as the upstream SDK's record builders do
 * (delete the signature member, JCS, Ed25519 over context‖0x00‖payload, ML-DSA-65 over that ‖ classical sig).
 */
function upstreamSign(kind: string, record: Record<string, unknown>, context: string, keys = alice) {
  const member = kind === 'delegation_mandate' ? 'human_composite_sig' : 'composite_sig';
  const payload = { ...record };
  delete payload[member];
  const text = canonicalizeV2(payload);
  if (!text.ok) throw new Error(text.error.message);
  const dsm = Buffer.concat([Buffer.from(context, 'utf8'), Buffer.of(0), Buffer.from(text.value, 'utf8')]);
  const classicalSig = backend.sign('ed25519', keys.classical.secretKey, dsm);
  const pqSig = backend.sign('ml-dsa-65', keys.pq.secretKey, Buffer.concat([dsm, classicalSig]));
  return {
    ...record,
    [member]: {
      classical: { alg: 'ed25519', kid: keys.classical.kid, sig_b64: encodeBase64(classicalSig) },
      pq: { alg: 'ml-dsa-65', kid: keys.pq.kid, sig_b64: encodeBase64(pqSig) },
      binding: 'pq_over_classical',
    },
  };
}

const example = (kind: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`${kind}.json`, EXAMPLES), 'utf8')) as Record<string, unknown>;

const SCHEMA_KINDS = Object.keys(RECORD_SIGNATURE_RULES).filter((k) => k !== 'lifecycle_transition');

describe('record signatures', () => {
  it('has a schema example for every signed record kind', () => {
    const files = new Set(readdirSync(EXAMPLES));
    for (const kind of SCHEMA_KINDS) expect(files.has(`${kind}.json`), kind).toBe(true);
  });

  for (const kind of SCHEMA_KINDS) {
    const context = `PROTO.v2.${RECORD_SIGNATURE_RULES[kind]?.context}`;
    it(`${kind}: an upstream-shaped signature verifies; tampering does not`, () => {
      const record = upstreamSign(kind, example(kind), context);
      const good = verifyRecordSignature(backend, PROFILES.proto, kind, record, lookupIn(alice.directory));
      expect(good).toMatchObject({ ok: true, classicalKid: alice.classical.kid, pqKid: alice.pq.kid });

      const flipped = { ...record, session_nonce: `${String(record['session_nonce']).slice(0, -1)}0` };
      if (flipped.session_nonce === record['session_nonce'])
        flipped.session_nonce = `${String(record['session_nonce']).slice(0, -1)}1`;
      expect(
        verifyRecordSignature(backend, PROFILES.proto, kind, flipped, lookupIn(alice.directory)),
      ).toMatchObject({
        ok: false,
        reason: 'invalid',
        code: 'CLASSICAL_SIG_INVALID',
      });
    });
  }

  it('the DCP-AI profile uses DCP-AI.v2 contexts, and a PROTO signature does not verify there', () => {
    const record = upstreamSign('rights_declaration', example('rights_declaration'), 'DCP-AI.v2.Rights');
    expect(
      verifyRecordSignature(
        backend,
        PROFILES['dcp-ai'],
        'rights_declaration',
        record,
        lookupIn(alice.directory),
      ).ok,
    ).toBe(true);
    expect(
      verifyRecordSignature(backend, PROFILES.proto, 'rights_declaration', record, lookupIn(alice.directory)),
    ).toMatchObject({ ok: false, code: 'CLASSICAL_SIG_INVALID' });
  });

  it('a signature under another kind’s context does not verify', () => {
    const record = upstreamSign(
      'commissioning_certificate',
      example('commissioning_certificate'),
      'PROTO.v2.Succession',
    );
    expect(
      verifyRecordSignature(
        backend,
        PROFILES.proto,
        'commissioning_certificate',
        record,
        lookupIn(alice.directory),
      ).ok,
    ).toBe(false);
  });

  it('signRecord produces what upstreamSign produces (Ed25519 half is deterministic)', () => {
    const base = example('objection_record');
    const ours = signRecord(backend, PROFILES.proto, 'objection_record', base, {
      classical: alice.classical,
      pq: alice.pq,
    });
    const theirs = upstreamSign('objection_record', base, 'PROTO.v2.Dispute');
    const sig = (r: Record<string, unknown>) =>
      (r['composite_sig'] as { classical: { sig_b64: string } }).classical.sig_b64;
    expect(sig(ours)).toBe(sig(theirs));
    expect(
      verifyRecordSignature(backend, PROFILES.proto, 'objection_record', ours, lookupIn(alice.directory)).ok,
    ).toBe(true);
  });

  it('a swapped kid (another known key named) fails; an unknown kid is reported as such', () => {
    const record = upstreamSign('vitality_report', example('vitality_report'), 'PROTO.v2.Lifecycle');
    const both = new Map([...alice.directory, ...mallory.directory]);
    const sig = record['composite_sig'] as { classical: { kid: string } };
    const swapped = {
      ...record,
      composite_sig: { ...sig, classical: { ...sig.classical, kid: mallory.classical.kid } },
    };
    expect(
      verifyRecordSignature(backend, PROFILES.proto, 'vitality_report', swapped, lookupIn(both)),
    ).toMatchObject({ ok: false, code: 'CLASSICAL_SIG_INVALID' });
    expect(
      verifyRecordSignature(backend, PROFILES.proto, 'vitality_report', record, lookupIn(mallory.directory)),
    ).toMatchObject({ ok: false, reason: 'unknown_key' });
  });

  it('a directory entry whose key does not derive the kid is refused (KID_MISMATCH)', () => {
    const record = upstreamSign('vitality_report', example('vitality_report'), 'PROTO.v2.Lifecycle');
    const lying = new Map(alice.directory);
    lying.set(alice.classical.kid, mallory.directory.get(mallory.classical.kid) as PublicKeyEntry);
    expect(
      verifyRecordSignature(backend, PROFILES.proto, 'vitality_report', record, lookupIn(lying)),
    ).toMatchObject({ ok: false, code: 'KID_MISMATCH', reason: 'invalid' });
  });

  it('a record signed by another agent’s keys verifies as that agent’s signature, never as the subject’s', () => {
    const record = upstreamSign('vitality_report', example('vitality_report'), 'PROTO.v2.Lifecycle', mallory);
    const verdict = verifyRecordSignature(
      backend,
      PROFILES.proto,
      'vitality_report',
      record,
      lookupIn(new Map([...alice.directory, ...mallory.directory])),
    );
    expect(verdict).toMatchObject({ ok: true, classicalKid: mallory.classical.kid });
  });

  it('a missing signature is SIGNATURE_MISSING; a stripped PQ half fails', () => {
    const { composite_sig: _gone, ...bare } = example('vitality_report');
    expect(
      verifyRecordSignature(backend, PROFILES.proto, 'vitality_report', bare, lookupIn(alice.directory)),
    ).toMatchObject({ ok: false, code: 'SIGNATURE_MISSING' });
    const record = upstreamSign('vitality_report', example('vitality_report'), 'PROTO.v2.Lifecycle');
    const sig = record['composite_sig'] as Record<string, unknown>;
    const stripped = { ...record, composite_sig: { ...sig, pq: null } };
    expect(
      verifyRecordSignature(backend, PROFILES.proto, 'vitality_report', stripped, lookupIn(alice.directory))
        .ok,
    ).toBe(false);
  });

  it('the delegation mandate is signed in human_composite_sig by its human', () => {
    const record = upstreamSign('delegation_mandate', example('delegation_mandate'), 'PROTO.v2.Delegation');
    expect(
      verifyRecordSignature(backend, PROFILES.proto, 'delegation_mandate', record, lookupIn(alice.directory))
        .ok,
    ).toBe(true);
    expect(recordSubjects('delegation_mandate', record)).toEqual([record['human_id']]);
  });

  it('subjects come from the kind’s subject fields, arrays included', () => {
    expect(recordSubjects('arbitration_resolution', { arbitrator_ids: ['a:1', 'a:2'] })).toEqual([
      'a:1',
      'a:2',
    ]);
    expect(recordSubjects('jurisprudence_bundle', { dispute_id: 'd' })).toEqual([]);
    expect(recordSubjects('commissioning_certificate', { agent_id: 'a', human_id: 'h' })).toEqual(['a', 'h']);
  });
});
