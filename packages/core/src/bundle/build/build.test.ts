// Builder tests: schema validity in every combination and independent re-checks of every hash,
// chain and signature. SPEC.md "Signed Bundle", PROTOCOL §5–§6, §10; DECISIONS D2, D5–D8, D10.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalBytesV1 } from '../../canonical/index.ts';
import { selectCryptoBackend } from '../../crypto/index.ts';
import { decodeBase64Strict } from '../../encoding/index.ts';
import { hexDigest } from '../../hash/index.ts';
import { protocolMerkleRoot } from '../../merkle/index.ts';
import { computeIntentTier, SECURITY_TIERS, TIER_PROFILES } from '../../policy/index.ts';
import { contextString, PROFILES, type ProfileName } from '../../profile.ts';
import { validateSchema } from '../../schema/index.ts';
import type { SecurityTier } from '../types.ts';
import { type BuildOptions, buildSignedBundle, generateBundleKeys } from './index.ts';
import { allNumbers, arr, checkComposite, jcs, obj, seededRandom, sha3Of, sha256Of } from './test-helpers.ts';
import type { BundleShape, JsonObject } from './types.ts';
import { specCheckpointRef } from './v2.ts';

const backend = selectCryptoBackend();
const principal = generateBundleKeys(backend);
const agent = generateBundleKeys(backend);
const keys = { principal, agent };
const NOW = new Date('2026-05-01T12:00:00.000Z');
const PROFILE_NAMES: ProfileName[] = ['proto', 'dcp-ai'];
const SHAPES: BundleShape[] = ['spec', 'sdk'];

function build(options: BuildOptions = {}) {
  return buildSignedBundle({ keys, backend, now: NOW, ...options });
}

function parts(signed: JsonObject) {
  const bundle = obj(signed['bundle']);
  return {
    bundle,
    signature: obj(signed['signature']),
    manifest: obj(bundle['manifest']),
    entries: arr(bundle['audit_entries']),
    checkpoints: bundle['pq_checkpoints'] === undefined ? [] : arr(bundle['pq_checkpoints']),
    payload: (name: string) => obj(obj(bundle[name])['payload']),
  };
}

function expectValid(version: 'v1' | 'v2', name: string, value: unknown) {
  const verdict = validateSchema(version, name, value);
  expect(verdict.valid ? [] : verdict.issues).toEqual([]);
}

const ARTIFACT_SCHEMAS: Array<[string, string]> = [
  ['responsible_principal_record', 'responsible_principal_record'],
  ['agent_passport', 'agent_passport'],
  ['intent', 'intent'],
  ['policy_decision', 'policy_decision'],
];

describe('V2 bundles pass the v2 schemas in every combination', () => {
  const cases: Array<[ProfileName, BundleShape, SecurityTier, boolean, boolean, number]> = [];
  for (const profile of PROFILE_NAMES)
    for (const shape of SHAPES)
      for (const tier of SECURITY_TIERS)
        for (const classicalOnly of [false, true])
          for (const dualHash of [true, false])
            cases.push([profile, shape, tier, classicalOnly, dualHash, 1 + (cases.length % 3)]);

  it.each(cases)(
    '%s %s %s classicalOnly=%s dualHash=%s entries=%i',
    (profile, shape, tier, classicalOnly, dualHash, entries) => {
      const { signed_bundle } = build({ profile, shape, tier, classicalOnly, dualHash, entries });
      expectValid('v2', 'signed_bundle', signed_bundle);
      const p = parts(signed_bundle);
      for (const [member, schema] of ARTIFACT_SCHEMAS) {
        expectValid('v2', 'signed_payload', p.bundle[member]);
        expectValid('v2', schema, p.payload(member));
      }
      expectValid('v2', 'bundle_manifest', p.manifest);
      for (const entry of p.entries) expectValid('v2', 'audit_entry', entry);
      for (const checkpoint of p.checkpoints) expectValid('v2', 'pq_checkpoint', checkpoint);
      // D2: V2 output holds integers only.
      expect(allNumbers(signed_bundle).every(Number.isSafeInteger)).toBe(true);
    },
  );
});

describe('V1 bundles pass the v1 schemas', () => {
  it.each(SECURITY_TIERS)('%s', (tier) => {
    const { signed_bundle } = build({ version: '1.0', tier, entries: 2 });
    expectValid('v1', 'signed_bundle', signed_bundle);
    const bundle = obj(signed_bundle['bundle']);
    expectValid('v1', 'citizenship_bundle', bundle);
    for (const entry of arr(bundle['audit_entries'])) expectValid('v1', 'audit_entry', entry);
  });
});

describe('V2 artifacts', () => {
  it('bind every artifact, entry, checkpoint and the manifest to one 64-hex session nonce (PROTOCOL §6.4)', () => {
    for (const shape of SHAPES) {
      const p = parts(build({ shape, tier: 'elevated', entries: 3 }).signed_bundle);
      const nonce = p.manifest['session_nonce'];
      expect(nonce).toMatch(/^[0-9a-f]{64}$/);
      for (const [member] of ARTIFACT_SCHEMAS) expect(p.payload(member)['session_nonce']).toBe(nonce);
      for (const entry of p.entries) expect(entry['session_nonce']).toBe(nonce);
      expect(p.checkpoints).toHaveLength(3);
      for (const checkpoint of p.checkpoints) expect(checkpoint['session_nonce']).toBe(nonce);
    }
  });

  it('uses a fresh nonce per bundle by default', () => {
    const a = parts(build().signed_bundle).manifest['session_nonce'];
    const b = parts(build().signed_bundle).manifest['session_nonce'];
    expect(a).not.toBe(b);
  });

  it.each(SECURITY_TIERS)('writes an intent whose PROTOCOL §6.7 tier is exactly %s (D10, P1)', (tier) => {
    const p = parts(build({ tier }).signed_bundle);
    const intent = p.payload('intent');
    const policy = p.payload('policy_decision');
    // P1: the intent has no risk_score of its own, so the policy decision's risk_score is its score.
    expect(intent['risk_score']).toBeUndefined();
    expect(computeIntentTier(intent, policy)).toBe(tier);
    expect(intent['security_tier']).toBe(tier);
    expect(policy['resolved_tier']).toBe(tier);
    expect(Number.isInteger(policy['risk_score'])).toBe(true);
    const riskTier = p.payload('agent_passport')['risk_tier'];
    expect(riskTier).toBe({ routine: 'low', standard: 'medium', elevated: 'high', maximum: 'high' }[tier]);
  });

  it('publishes principal keys as RPR binding_keys and agent keys in the passport (PROTOCOL §4.5)', () => {
    const p = parts(build().signed_bundle);
    const binding = arr(p.payload('responsible_principal_record')['binding_keys']);
    expect(binding.map((k) => [k['alg'], k['kid'], k['status']])).toEqual([
      ['ed25519', principal.classical.kid, 'active'],
      ['ml-dsa-65', principal.pq?.kid, 'active'],
    ]);
    expect(decodeBase64Strict(String(binding[1]?.['public_key_b64']))).toEqual(principal.pq?.publicKey);
    const passport = p.payload('agent_passport');
    expect(arr(passport['keys']).map((k) => k['kid'])).toEqual([agent.classical.kid, agent.pq?.kid]);
    expect(passport['status']).toBe('active');
    expect(passport['created_at']).toBe(NOW.toISOString());
  });

  it('writes emergency_revocation_token into the signed passport only when asked (PROTOCOL §9.5)', () => {
    expect(parts(build().signed_bundle).payload('agent_passport')).not.toHaveProperty(
      'emergency_revocation_token',
    );
    const token = `sha256:${'ab'.repeat(32)}`;
    const built = build({ emergencyRevocationToken: token });
    const passport = parts(built.signed_bundle).payload('agent_passport');
    expect(passport['emergency_revocation_token']).toBe(token);
    expectValid('v2', 'agent_passport', passport);
  });

  it('stores payload_hash = sha256(jcs(payload)) and repeats it in the manifest', () => {
    const p = parts(build().signed_bundle);
    const pairs: Array<[string, string]> = [
      ['responsible_principal_record', 'rpr_hash'],
      ['agent_passport', 'passport_hash'],
      ['intent', 'intent_hash'],
      ['policy_decision', 'policy_hash'],
    ];
    for (const [member, field] of pairs) {
      const hash = sha256Of(p.payload(member));
      expect(obj(p.bundle[member])['payload_hash']).toBe(hash);
      expect(p.manifest[field]).toBe(hash);
    }
  });

  it.each(PROFILE_NAMES)(
    'signs each artifact under its own %s context with the right keys (D8)',
    (profileName) => {
      const profile = PROFILES[profileName];
      const p = parts(build({ profile: profileName }).signed_bundle);
      const expectations: Array<[string, Parameters<typeof contextString>[1], typeof principal]> = [
        ['responsible_principal_record', 'ResponsiblePrincipal', principal],
        ['agent_passport', 'AgentPassport', agent],
        ['intent', 'Intent', agent],
        ['policy_decision', 'PolicyDecision', agent],
      ];
      for (const [member, context, signer] of expectations) {
        const artifact = obj(p.bundle[member]);
        const ok = checkComposite(
          backend,
          artifact['composite_sig'],
          signer,
          contextString(profile, context),
          artifact['payload'],
        );
        expect(ok).toEqual({ classical: true, pq: true, binding: 'pq_over_classical' });
        // Another context (or the other profile's) does not verify: domain separation is real.
        const other = profileName === 'proto' ? PROFILES['dcp-ai'] : PROFILES.proto;
        expect(
          checkComposite(
            backend,
            artifact['composite_sig'],
            signer,
            contextString(other, context),
            artifact['payload'],
          ).classical,
        ).toBe(false);
      }
    },
  );

  it('signs jcs(manifest) under Bundle with the principal keys and states manifest_hash (D5, D8)', () => {
    for (const profileName of PROFILE_NAMES) {
      const p = parts(build({ profile: profileName }).signed_bundle);
      const context = contextString(PROFILES[profileName], 'Bundle');
      expect(checkComposite(backend, p.signature['composite_sig'], principal, context, p.manifest)).toEqual({
        classical: true,
        pq: true,
        binding: 'pq_over_classical',
      });
      expect(p.signature['manifest_hash']).toBe(sha256Of(p.manifest));
    }
  });

  it('classicalOnly: binding classical_only, pq null and Ed25519 keys only, everywhere', () => {
    for (const shape of SHAPES) {
      const built = build({
        classicalOnly: true,
        shape,
        tier: 'elevated',
        entries: 2,
        checkpointInterval: 1,
      });
      const p = parts(built.signed_bundle);
      const sigs = [
        ...ARTIFACT_SCHEMAS.map(([m]) => obj(p.bundle[m])['composite_sig']),
        ...p.checkpoints.map((c) => c['composite_sig']),
        p.signature['composite_sig'],
      ];
      expect(sigs).toHaveLength(7);
      for (const sig of sigs) {
        expect(obj(sig)['pq']).toBeNull();
        expect(obj(sig)['binding']).toBe('classical_only');
      }
      expect(arr(p.payload('agent_passport')['keys']).map((k) => k['alg'])).toEqual(['ed25519']);
      expect(arr(p.payload('responsible_principal_record')['binding_keys']).map((k) => k['alg'])).toEqual([
        'ed25519',
      ]);
      if (shape === 'sdk') expect(obj(p.signature['signer'])['kids']).toEqual([principal.classical.kid]);
    }
  });

  it('classicalOnly writes no PQ checkpoints unless asked (D6: a checkpoint needs its ML-DSA half)', () => {
    for (const shape of SHAPES) {
      const p = parts(build({ classicalOnly: true, shape, tier: 'elevated', entries: 3 }).signed_bundle);
      expect(p.bundle).not.toHaveProperty('pq_checkpoints');
      expect(p.entries.every((e) => e['pq_checkpoint_ref'] === null)).toBe(true);
    }
  });

  it('classicalOnly without keys generates Ed25519-only key sets', () => {
    const built = buildSignedBundle({ classicalOnly: true, backend });
    expect(built.keys.principal.pq).toBeUndefined();
    expect(built.keys.agent.pq).toBeUndefined();
  });
});

describe('V2 audit trail (PROTOCOL §6.5, D7)', () => {
  it('chains both hashes over jcs of the whole previous entry, GENESIS first', () => {
    const p = parts(build({ entries: 4 }).signed_bundle);
    const intentPayload = p.payload('intent');
    p.entries.forEach((entry, i) => {
      const previous = p.entries[i - 1];
      expect(entry['prev_hash']).toBe(previous ? sha256Of(previous) : 'GENESIS');
      expect(entry['prev_hash_secondary']).toBe(previous ? sha3Of(previous) : 'GENESIS');
      expect(entry['intent_hash']).toBe(sha256Of(intentPayload));
      expect(entry['intent_hash_secondary']).toBe(sha3Of(intentPayload));
      expect(entry['hash_alg']).toBe('sha256+sha3-256');
    });
  });

  it('dualHash false leaves out every SHA3 field and the secondary root', () => {
    for (const shape of SHAPES) {
      const p = parts(build({ dualHash: false, shape, entries: 2 }).signed_bundle);
      for (const entry of p.entries) {
        expect(entry).not.toHaveProperty('prev_hash_secondary');
        expect(entry).not.toHaveProperty('intent_hash_secondary');
        expect(entry['hash_alg']).toBe('sha256');
      }
      expect(p.manifest).not.toHaveProperty('audit_merkle_root_secondary');
      if (shape === 'sdk') expect(p.signature['hash_alg']).toBe('sha256');
    }
  });

  it('states both Merkle roots and the entry count in the manifest (PROTOCOL §2.2)', () => {
    for (const entries of [1, 2, 3, 5]) {
      const p = parts(build({ entries }).signed_bundle);
      const primary = p.entries.map((e) => hexDigest('sha256', jcs(e)));
      const secondary = p.entries.map((e) => hexDigest('sha3-256', jcs(e)));
      expect(p.manifest['audit_merkle_root']).toBe(`sha256:${protocolMerkleRoot('sha256', primary)}`);
      expect(p.manifest['audit_merkle_root_secondary']).toBe(
        `sha3-256:${protocolMerkleRoot('sha3-256', secondary)}`,
      );
      expect(p.manifest['audit_count']).toBe(entries);
    }
  });
});

describe('V2 PQ checkpoints (D6)', () => {
  it.each(SECURITY_TIERS)('%s: one checkpoint per tier interval and one at the end', (tier) => {
    const entries = 12;
    const p = parts(build({ tier, entries, shape: 'sdk' }).signed_bundle);
    const interval = TIER_PROFILES[tier].checkpointInterval;
    expect(p.checkpoints).toHaveLength(Math.ceil(entries / interval));
    const counts = p.checkpoints.map((c) => obj(c['event_range'])['count']);
    expect(counts.reduce((a, b) => Number(a) + Number(b), 0)).toBe(entries);
  });

  it('sdk shape: event_range, Merkle root of the slice, AuditEvent signature with agent keys, ids in the manifest', () => {
    const p = parts(build({ shape: 'sdk', entries: 5, checkpointInterval: 2 }).signed_bundle);
    expect(p.checkpoints).toHaveLength(3);
    const ids = p.checkpoints.map((c) => c['checkpoint_id']);
    for (const id of ids)
      expect(id).toMatch(/^ckpt-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(p.manifest['pq_checkpoints']).toEqual(ids);
    const slices = [
      [0, 2],
      [2, 4],
      [4, 5],
    ];
    p.checkpoints.forEach((checkpoint, i) => {
      const [from, to] = slices[i] as [number, number];
      const slice = p.entries.slice(from, to);
      expect(checkpoint['event_range']).toEqual({
        from_audit_id: slice[0]?.['audit_id'],
        to_audit_id: slice.at(-1)?.['audit_id'],
        count: to - from,
      });
      const leaves = slice.map((e) => hexDigest('sha256', jcs(e)));
      expect(checkpoint['merkle_root']).toBe(`sha256:${protocolMerkleRoot('sha256', leaves)}`);
      for (const entry of slice) expect(entry['pq_checkpoint_ref']).toBe(checkpoint['checkpoint_id']);
      const { composite_sig, ...body } = checkpoint;
      expect(
        checkComposite(backend, composite_sig, agent, contextString(PROFILES.proto, 'AuditEvent'), body),
      ).toEqual({
        classical: true,
        pq: true,
        binding: 'pq_over_classical',
      });
    });
  });

  it('spec shape: cumulative audit_state with both roots and both last hashes', () => {
    const p = parts(
      build({ shape: 'spec', entries: 5, checkpointInterval: 2, profile: 'dcp-ai' }).signed_bundle,
    );
    expect(p.checkpoints.map((c) => obj(c['audit_state'])['entry_count'])).toEqual([2, 4, 5]);
    expect(p.manifest['checkpoint_count']).toBe(3);
    p.checkpoints.forEach((checkpoint, index) => {
      expect(checkpoint['type']).toBe('pq_checkpoint');
      expect(checkpoint['checkpoint_index']).toBe(index);
      const state = obj(checkpoint['audit_state']);
      const upTo = p.entries.slice(0, Number(state['entry_count']));
      const primary = upTo.map((e) => hexDigest('sha256', jcs(e)));
      const secondary = upTo.map((e) => hexDigest('sha3-256', jcs(e)));
      expect(state['primary_merkle_root']).toBe(`sha256:${protocolMerkleRoot('sha256', primary)}`);
      expect(state['secondary_merkle_root']).toBe(`sha3-256:${protocolMerkleRoot('sha3-256', secondary)}`);
      expect(state['last_primary_hash']).toBe(sha256Of(upTo.at(-1)));
      expect(state['last_secondary_hash']).toBe(sha3Of(upTo.at(-1)));
      const { composite_sig, ...body } = checkpoint;
      const context = contextString(PROFILES['dcp-ai'], 'AuditEvent');
      expect(checkComposite(backend, composite_sig, agent, context, body).pq).toBe(true);
    });
    expect(p.entries.map((e) => e['pq_checkpoint_ref'])).toEqual([0, 0, 1, 1, 2].map(specCheckpointRef));
  });

  it('checkpointInterval 0: no checkpoints, null refs, checkpoint_count 0', () => {
    for (const shape of SHAPES) {
      const p = parts(build({ shape, checkpointInterval: 0, tier: 'maximum' }).signed_bundle);
      expect(p.bundle).not.toHaveProperty('pq_checkpoints');
      expect(p.entries.every((e) => e['pq_checkpoint_ref'] === null)).toBe(true);
      if (shape === 'spec') expect(p.manifest['checkpoint_count']).toBe(0);
      else expect(p.manifest).not.toHaveProperty('pq_checkpoints');
    }
  });
});

describe('V2 shapes (D1, D5, D6)', () => {
  it('defaults to the spec shape under proto and the sdk shape under dcp-ai', () => {
    expect(parts(build().signed_bundle).manifest).toHaveProperty('dcp_bundle_version', '2.0');
    expect(parts(build({ profile: 'dcp-ai' }).signed_bundle).manifest).toHaveProperty(
      'canonicalization_profile',
    );
  });

  it('spec manifest: SPEC.md fields plus audit_count; signature {composite_sig, manifest_hash}', () => {
    const p = parts(build({ shape: 'spec', sessionTtlSeconds: 600 }).signed_bundle);
    expect(Object.keys(p.manifest).sort()).toEqual(
      [
        'dcp_bundle_version',
        'session_nonce',
        'rpr_hash',
        'passport_hash',
        'intent_hash',
        'policy_hash',
        'audit_merkle_root',
        'audit_merkle_root_secondary',
        'audit_count',
        'checkpoint_count',
        'created_at',
        'session_expires_at',
      ].sort(),
    );
    expect(p.manifest['created_at']).toBe(NOW.toISOString());
    expect(p.manifest['session_expires_at']).toBe(new Date(NOW.getTime() + 600_000).toISOString());
    expect(Object.keys(p.signature).sort()).toEqual(['composite_sig', 'manifest_hash']);
  });

  it('sdk manifest and signature carry the SDK members (PROTOCOL §6.1, §6.2)', () => {
    const p = parts(build({ shape: 'sdk', tier: 'routine' }).signed_bundle);
    expect(Object.keys(p.manifest).sort()).toEqual(
      [
        'session_nonce',
        'rpr_hash',
        'passport_hash',
        'intent_hash',
        'policy_hash',
        'audit_merkle_root',
        'audit_count',
        'canonicalization_profile',
        'audit_merkle_root_secondary',
        'pq_checkpoints',
        'session_expires_at',
      ].sort(),
    );
    expect(p.manifest['canonicalization_profile']).toBe('dcp-jcs-v1');
    expect(p.manifest['session_expires_at']).toBe(new Date(NOW.getTime() + 86_400_000).toISOString());
    expect(p.signature).toMatchObject({
      hash_alg: 'sha256+sha3-256',
      created_at: NOW.toISOString(),
      signer: {
        type: 'human',
        id: p.payload('responsible_principal_record')['human_id'],
        kids: [principal.classical.kid, principal.pq?.kid],
      },
    });
  });

  it.each([
    ['routine', 86_400],
    ['standard', 14_400],
    ['elevated', 3_600],
    ['maximum', 900],
  ] as const)('%s sessions last %i s by default (PROTOCOL §6.4)', (tier, seconds) => {
    const p = parts(build({ tier }).signed_bundle);
    expect(Date.parse(String(p.manifest['session_expires_at'])) - NOW.getTime()).toBe(seconds * 1000);
  });

  const UPSTREAM = path.resolve(
    fileURLToPath(new URL('.', import.meta.url)),
    '../../../../../../shared/vectors/generated/v2_signed_bundles.generated.json',
  );
  it.skipIf(!existsSync(UPSTREAM))(
    'sdk shape has the members of the upstream SDK bundles, field for field',
    () => {
      const upstream = obj(
        obj(JSON.parse(readFileSync(UPSTREAM, 'utf8')))['dual_hash_checkpoints_signed_by_agent_keys'],
      );
      const theirs = parts(obj(upstream['signed_bundle']));
      const ours = parts(
        build({ shape: 'sdk', profile: 'dcp-ai', entries: 4, checkpointInterval: 2 }).signed_bundle,
      );
      const keysOf = (value: unknown) => Object.keys(obj(value)).sort();
      expect(keysOf(ours.bundle)).toEqual(keysOf(theirs.bundle));
      expect(keysOf(ours.signature)).toEqual(keysOf(theirs.signature));
      expect(keysOf(ours.signature['signer'])).toEqual(keysOf(theirs.signature['signer']));
      // Upstream's example also names an intended_verifier (an optional signer option).
      expect(keysOf(ours.manifest)).toEqual(keysOf(theirs.manifest).filter((k) => k !== 'intended_verifier'));
      for (const [member] of ARTIFACT_SCHEMAS) {
        expect(keysOf(ours.bundle[member])).toEqual(keysOf(theirs.bundle[member]));
        expect(keysOf(ours.payload(member))).toEqual(keysOf(theirs.payload(member)));
      }
      expect(keysOf(ours.entries[0])).toEqual(keysOf(theirs.entries[0]));
      expect(keysOf(ours.entries[0]?.['evidence'])).toEqual(keysOf(theirs.entries[0]?.['evidence']));
      expect(keysOf(ours.checkpoints[0])).toEqual(keysOf(theirs.checkpoints[0]));
      expect(keysOf(ours.checkpoints[0]?.['event_range'])).toEqual(
        keysOf(theirs.checkpoints[0]?.['event_range']),
      );
    },
  );
});

describe('bundleHash, determinism and hooks', () => {
  it('V2 bundleHash = sha256 over jcs({bundle, signature})', () => {
    const built = build();
    expect(built.bundleHash).toBe(sha256Of(built.signed_bundle));
  });

  it('is reproducible with fixed keys, clock and random source (classical signatures are deterministic)', () => {
    const options: BuildOptions = {
      classicalOnly: true,
      random: seededRandom(7),
      shape: 'sdk',
      tier: 'elevated',
    };
    const a = build(options);
    const b = build({ ...options, random: seededRandom(7) });
    expect(JSON.stringify(a.signed_bundle)).toBe(JSON.stringify(b.signed_bundle));
    expect(a.bundleHash).toBe(b.bundleHash);
  });

  it('hooks change content before it is hashed, chained and signed', () => {
    const built = build({
      entries: 3,
      hooks: {
        payloads: (p) => {
          p.responsible_principal_record['legal_name'] = 'Changed Before Signing';
        },
        entry: (entry, i) => {
          entry['outcome'] = `custom-${i}`;
        },
        manifest: (m) => {
          m['intended_verifier'] = 'verifier.example.org';
        },
      },
    });
    const p = parts(built.signed_bundle);
    expect(p.payload('responsible_principal_record')['legal_name']).toBe('Changed Before Signing');
    expect(obj(p.bundle['responsible_principal_record'])['payload_hash']).toBe(
      sha256Of(p.payload('responsible_principal_record')),
    );
    expect(p.entries.map((e) => e['outcome'])).toEqual(['custom-0', 'custom-1', 'custom-2']);
    expect(p.entries[1]?.['prev_hash']).toBe(sha256Of(p.entries[0]));
    const context = contextString(PROFILES.proto, 'Bundle');
    expect(
      checkComposite(backend, p.signature['composite_sig'], principal, context, p.manifest).classical,
    ).toBe(true);
    expect(p.manifest['intended_verifier']).toBe('verifier.example.org');
  });
});

describe('V1 bundles (PROTOCOL §5, D3)', () => {
  function v1Bytes(value: unknown): Uint8Array {
    const bytes = canonicalBytesV1(value);
    if (!bytes.ok) throw new Error(bytes.error.message);
    return bytes.value;
  }

  it('signs the V1-canonical bundle with Ed25519 and states bundle_hash and merkle_root', () => {
    const { signed_bundle, bundleHash } = build({ version: '1.0', entries: 3 });
    const bundle = obj(signed_bundle['bundle']);
    const signature = obj(signed_bundle['signature']);
    const bytes = v1Bytes(bundle);
    expect(signature['bundle_hash']).toBe(`sha256:${hexDigest('sha256', bytes)}`);
    expect(bundleHash).toBe(signature['bundle_hash']);
    const publicKey = decodeBase64Strict(String(obj(signature['signer'])['public_key_b64']));
    expect(publicKey).toEqual(principal.classical.publicKey);
    const sig = decodeBase64Strict(String(signature['sig_b64']));
    expect(backend.verify('ed25519', principal.classical.publicKey, bytes, sig as Uint8Array)).toBe(true);
    const leaves = arr(bundle['audit_entries']).map((e) => hexDigest('sha256', v1Bytes(e)));
    expect(signature['merkle_root']).toBe(`sha256:${protocolMerkleRoot('sha256', leaves)}`);
  });

  it('chains bare-hex hashes of the V1-canonical entries and keeps a float risk score', () => {
    const { signed_bundle } = build({ version: '1.0', entries: 3, tier: 'standard' });
    const bundle = obj(signed_bundle['bundle']);
    const entries = arr(bundle['audit_entries']);
    const intentHash = hexDigest('sha256', v1Bytes(bundle['intent']));
    entries.forEach((entry, i) => {
      const previous = entries[i - 1];
      expect(entry['prev_hash']).toBe(previous ? hexDigest('sha256', v1Bytes(previous)) : 'GENESIS');
      expect(entry['intent_hash']).toBe(intentHash);
    });
    expect(obj(bundle['policy_decision'])['risk_score']).toBe(0.35);
    expect(obj(bundle['agent_passport'])['public_key']).toBe(
      Buffer.from(agent.classical.publicKey).toString('base64'),
    );
  });
});

describe('option errors are programmer errors (thrown TypeError)', () => {
  it.each([
    [{ entries: 0 }],
    [{ entries: 1.5 }],
    [{ tier: 'extreme' as SecurityTier }],
    [{ version: '3.0' as '2.0' }],
    [{ profile: 'other' as ProfileName }],
    [{ shape: 'json' as BundleShape }],
    [{ checkpointInterval: -1 }],
    [{ now: new Date(Number.NaN) }],
    [{ keys: { principal: { classical: principal.classical } } }],
    [{ emergencyRevocationToken: 'sha256:abc' }],
    [{ emergencyRevocationToken: `sha256:${'a'.repeat(64)}`, version: '1.0' as const }],
  ])('%j', (options) => {
    expect(() => buildSignedBundle({ backend, ...options })).toThrow(TypeError);
  });
});
