// One planted defect per V2 check, built with the bundle builder's hooks so that every other check
// still passes: each test shows the code and the only failing check. DECISIONS D2, D5–D9, D12.
import { describe, expect, it } from 'vitest';
import { compositeSign, domainSeparatedMessage } from '../../crypto/index.ts';
import { encodeBase64 } from '../../encoding/index.ts';
import { contextString, PROFILES, type ProfileName } from '../../profile.ts';
import {
  type BuildOptions,
  type BundleKeySet,
  buildSignedBundle,
  generateBundleKeys,
} from '../build/index.ts';
import { a, backend, codes, FIXED_NOW, flipB64, type J, jcs, makeVerifier, o } from '../test-support.ts';
import type { VerifyResponse } from '../types.ts';

const KEYS: { principal: BundleKeySet; agent: BundleKeySet } = {
  principal: generateBundleKeys(backend),
  agent: generateBundleKeys(backend),
};

function build(options: BuildOptions = {}): J {
  return buildSignedBundle({ now: FIXED_NOW, keys: KEYS, backend, ...options }).signed_bundle as J;
}

function failed(response: VerifyResponse): string[] {
  return Object.entries(response.checks)
    .filter(([, status]) => status === 'fail')
    .map(([name]) => name);
}

const bundleSig = (s: J) => o(o(s['signature'])['composite_sig']);

/** A composite whose classical half signs the wrong bytes while its PQ half is valid over DSM ‖ that half. */
function classicalOnlyBroken(profile: ProfileName, manifest: unknown): J {
  const keys = KEYS.principal;
  const context = contextString(PROFILES[profile], 'Bundle');
  const wrong = compositeSign(
    backend,
    { classical: { alg: 'ed25519', kid: keys.classical.kid, secretKey: keys.classical.secretKey } },
    context,
    jcs({ not: 'the manifest' }),
  );
  const classicalBytes = Buffer.from(wrong.classical.sig_b64, 'base64');
  const dsm = domainSeparatedMessage(context, jcs(manifest));
  const pqSig = backend.sign('ml-dsa-65', keys.pq!.secretKey, Buffer.concat([dsm, classicalBytes]));
  return {
    classical: { ...wrong.classical },
    pq: { alg: 'ml-dsa-65', kid: keys.pq!.kid, sig_b64: encodeBase64(pqSig) },
    binding: 'pq_over_classical',
  };
}

const SETUPS = [
  { profile: 'proto', shape: 'spec' },
  { profile: 'dcp-ai', shape: 'sdk' },
] as const;

describe.each(SETUPS)('V2 checks, profile $profile, $shape shapes', ({ profile, shape }) => {
  const verifier = makeVerifier({ profile });
  const opts: BuildOptions = { profile, shape };

  it('the unmodified builder bundle verifies (the baseline of every case below)', () => {
    const response = verifier.verify({ signed_bundle: build(opts) });
    expect(response.verified).toBe(true);
    expect(failed(response)).toEqual([]);
  });

  const CASES: ReadonlyArray<{
    readonly name: string;
    readonly build: () => J;
    readonly check: string;
    readonly codes: readonly string[];
  }> = [
    {
      name: 'schema E001: an unknown manifest member',
      build: () =>
        build({
          ...opts,
          hooks: {
            manifest: (m) => {
              m['note'] = 'x';
            },
          },
        }),
      check: 'schema',
      codes: ['E001'],
    },
    {
      name: 'schema E002: an intent payload with an unknown member',
      build: () =>
        build({
          ...opts,
          hooks: {
            payloads: (p) => {
              p.intent['extra'] = true;
            },
          },
        }),
      check: 'schema',
      codes: ['E002'],
    },
    {
      name: 'schema E002: an audit entry that fails the audit_entry schema',
      build: () =>
        build({
          ...opts,
          hooks: {
            entries: (e) => {
              e[1]!['policy_decision'] = 'maybe';
            },
          },
        }),
      check: 'schema',
      codes: ['E002'],
    },
    {
      name: 'schema E002 (D2): a float inside evidence, which the schema allows but dcp-jcs-v1 refuses',
      build: () => {
        const s = build(opts);
        o(a(o(s['bundle'])['audit_entries'])[0]!['evidence'])['score'] = 0.5;
        return s;
      },
      check: 'schema',
      codes: ['E002'],
    },
    {
      name: 'classical_sig E100: the Ed25519 half signs other bytes (the PQ half is valid)',
      build: () =>
        build({
          ...opts,
          hooks: {
            signedBundle: (s) => {
              o(s['signature'])['composite_sig'] = classicalOnlyBroken(profile, o(s['bundle'])['manifest']);
            },
          },
        }),
      check: 'classical_sig',
      codes: ['E100'],
    },
    {
      name: 'pq_sig E101: a tampered ML-DSA half',
      build: () =>
        build({
          ...opts,
          hooks: {
            signedBundle: (s) => {
              o(bundleSig(s)['pq'])['sig_b64'] = flipB64(o(bundleSig(s)['pq'])['sig_b64']);
            },
          },
        }),
      check: 'pq_sig',
      codes: ['E101'],
    },
    {
      name: 'pq_sig E102 (D9): the PQ half stripped, binding kept',
      build: () =>
        build({
          ...opts,
          hooks: {
            signedBundle: (s) => {
              bundleSig(s)['pq'] = null;
            },
          },
        }),
      check: 'pq_sig',
      codes: ['E102'],
    },
    {
      name: 'manifest_integrity E201: a signed but wrong audit_count (D4)',
      build: () =>
        build({
          ...opts,
          hooks: {
            manifest: (m) => {
              m['audit_count'] = 99;
            },
          },
        }),
      check: 'manifest_integrity',
      codes: ['E201'],
    },
    {
      name: 'manifest_integrity E201: an envelope payload_hash that is not its payload’s (copied into the manifest)',
      build: () =>
        build({
          ...opts,
          hooks: {
            artifacts: (x) => {
              x.policy_decision['payload_hash'] = `sha256:${'0'.repeat(64)}`;
            },
          },
        }),
      check: 'manifest_integrity',
      codes: ['E201', 'E201'],
    },
    {
      name: 'manifest_integrity E202: a signed but wrong secondary root (D7)',
      build: () =>
        build({
          ...opts,
          hooks: {
            manifest: (m) => {
              m['audit_merkle_root_secondary'] = `sha3-256:${'1'.repeat(64)}`;
            },
          },
        }),
      check: 'manifest_integrity',
      codes: ['E202'],
    },
    {
      name: 'manifest_integrity E003 (D5): an unknown canonicalization_profile',
      build: () =>
        build({
          ...opts,
          hooks: {
            manifest: (m) => {
              m['canonicalization_profile'] = 'dcp-jcs-v2';
            },
          },
        }),
      check: 'manifest_integrity',
      codes: ['E003'],
    },
    {
      name: 'manifest_integrity E201 (D5): a wrong signature.manifest_hash',
      build: () =>
        build({
          ...opts,
          hooks: {
            signedBundle: (s) => {
              o(s['signature'])['manifest_hash'] = `sha256:${'2'.repeat(64)}`;
            },
          },
        }),
      check: 'manifest_integrity',
      codes: ['E201'],
    },
    {
      name: 'hash_chain E200 + E203: a broken prev_hash link (entry 2 no longer links in either chain)',
      build: () =>
        build({
          ...opts,
          hooks: {
            entries: (e) => {
              e[1]!['prev_hash'] = `sha256:${'3'.repeat(64)}`;
            },
          },
        }),
      check: 'hash_chain',
      codes: ['E200', 'E203'],
    },
    {
      name: 'hash_chain E203 (D7): a wrong prev_hash_secondary on the last entry',
      build: () =>
        build({
          ...opts,
          hooks: {
            entries: (e) => {
              e[e.length - 1]!['prev_hash_secondary'] = `sha3-256:${'4'.repeat(64)}`;
            },
          },
        }),
      check: 'hash_chain',
      codes: ['E203'],
    },
    {
      name: 'hash_chain E203 (D7): GENESIS as prev_hash_secondary after entry 0',
      build: () =>
        build({
          ...opts,
          hooks: {
            entries: (e) => {
              e[e.length - 1]!['prev_hash_secondary'] = 'GENESIS';
            },
          },
        }),
      check: 'hash_chain',
      codes: ['E203'],
    },
    {
      name: 'intent_hash E204 (D7): an entry naming another intent',
      build: () =>
        build({
          ...opts,
          hooks: {
            entries: (e) => {
              e[e.length - 1]!['intent_hash'] = `sha256:${'5'.repeat(64)}`;
            },
          },
        }),
      check: 'intent_hash',
      codes: ['E204'],
    },
    {
      name: 'session_nonce E500: an entry from another session (splicing, PROTOCOL §6.4)',
      build: () =>
        build({
          ...opts,
          hooks: {
            entries: (e) => {
              e[e.length - 1]!['session_nonce'] = '6'.repeat(64);
            },
          },
        }),
      check: 'session_nonce',
      codes: ['E500'],
    },
    {
      name: 'session_nonce E501 (D5): session_expires_at in the past',
      build: () =>
        build({
          ...opts,
          hooks: {
            manifest: (m) => {
              m['session_expires_at'] = '2026-01-01T00:00:00Z';
            },
          },
        }),
      check: 'session_nonce',
      codes: ['E501'],
    },
    {
      name: 'artifact_sigs E100/E101 (D8): a tampered intent signature',
      build: () =>
        build({
          ...opts,
          hooks: {
            artifacts: (x) => {
              const c = o(o(x.intent['composite_sig'])['classical']);
              c['sig_b64'] = flipB64(c['sig_b64']);
            },
          },
        }),
      check: 'artifact_sigs',
      codes: ['E100', 'E101'],
    },
    {
      name: 'key_validity E300 (D8): a suspended passport',
      build: () =>
        build({
          ...opts,
          hooks: {
            payloads: (p) => {
              p.agent_passport['status'] = 'suspended';
            },
          },
        }),
      check: 'key_validity',
      codes: ['E300'],
    },
    {
      name: 'key_validity E301 (D8): a signing key past its expires_at',
      build: () =>
        build({
          ...opts,
          hooks: {
            payloads: (p) => {
              a(p.agent_passport['keys'])[0]!['expires_at'] = '2026-06-01T00:00:00Z';
            },
          },
        }),
      check: 'key_validity',
      codes: ['E301'],
    },
    {
      name: 'key_validity E302 (D8): a revoked key that signed',
      build: () =>
        build({
          ...opts,
          hooks: {
            payloads: (p) => {
              a(p.agent_passport['keys'])[0]!['status'] = 'revoked';
            },
          },
        }),
      check: 'key_validity',
      codes: ['E302'],
    },
    {
      name: 'key_validity E303 (D8): a kid that is not derived from its key',
      build: () =>
        build({
          ...opts,
          keys: {
            principal: {
              ...KEYS.principal,
              classical: { ...KEYS.principal.classical, kid: 'ab'.repeat(16) },
            },
            agent: KEYS.agent,
          },
        }),
      check: 'key_validity',
      codes: ['E303'],
    },
    {
      name: 'key_validity E304 (D8): an expired RPR',
      build: () =>
        build({
          ...opts,
          hooks: {
            payloads: (p) => {
              p.responsible_principal_record['expires_at'] = '2026-06-01T00:00:00Z';
            },
          },
        }),
      check: 'key_validity',
      codes: ['E304'],
    },
  ];

  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const response = verifier.verify({ signed_bundle: c.build() });
    const prefix = PROFILES[profile].errorPrefix;
    expect(response.verified).toBe(false);
    expect(failed(response)).toEqual([c.check]);
    expect(codes(response)).toEqual(c.codes.map((code) => `${prefix}${code.slice(1)}`));
    for (const detail of response.error_details ?? []) expect(detail.check).toBe(c.check);
  });

  it('checkpoints E101 (D6): a checkpoint whose ML-DSA half is tampered', () => {
    const signed = build({
      ...opts,
      tier: 'elevated',
      hooks: {
        checkpoints: (cps) => {
          const pq = o(o(cps[0]!['composite_sig'])['pq']);
          pq['sig_b64'] = flipB64(pq['sig_b64']);
        },
      },
    });
    const response = verifier.verify({ signed_bundle: signed });
    expect(failed(response)).toEqual(['checkpoints']);
    expect(codes(response)).toEqual([`${PROFILES[profile].errorPrefix}101`]);
  });

  it('checkpoints E202 (D6): the first checkpoint removed leaves a coverage gap', () => {
    const signed = build({
      ...opts,
      tier: 'elevated',
      hooks: {
        checkpoints: (cps) => {
          cps.shift();
        },
      },
    });
    const response = verifier.verify({ signed_bundle: signed });
    expect(failed(response)).toEqual(['checkpoints']);
    expect(codes(response)[0]).toBe(`${PROFILES[profile].errorPrefix}202`);
  });

  it('checkpoints E103 (D6): maximum tier without checkpoints', () => {
    const response = verifier.verify({
      signed_bundle: build({ ...opts, tier: 'maximum', checkpointInterval: 0 }),
    });
    expect(response.resolved_tier).toBe('maximum');
    expect(failed(response)).toEqual(['checkpoints']);
    expect(codes(response)).toEqual([`${PROFILES[profile].errorPrefix}103`]);
  });

  it('checkpoints E401 (D6): maximum tier with two entries per checkpoint', () => {
    const response = verifier.verify({
      signed_bundle: build({ ...opts, tier: 'maximum', entries: 4, checkpointInterval: 2 }),
    });
    expect(failed(response)).toEqual(['checkpoints']);
    expect(codes(response)).toEqual([
      `${PROFILES[profile].errorPrefix}401`,
      `${PROFILES[profile].errorPrefix}401`,
    ]);
  });

  it('checkpoints: a configured PQ_CHECKPOINT_INTERVAL bounds every checkpoint below maximum too', () => {
    const signed = build({ ...opts, tier: 'standard', entries: 6, checkpointInterval: 3 });
    expect(verifier.verify({ signed_bundle: signed }).verified).toBe(true);
    const strict = makeVerifier({ profile, checkpointInterval: 2 }).verify({ signed_bundle: signed });
    expect(failed(strict)).toEqual(['checkpoints']);
  });

  it('checkpoints: a maximum-tier bundle with one checkpoint per entry verifies every checkpoint', () => {
    const verifierAnalysis = verifier.analyze({
      signed_bundle: build({ ...opts, tier: 'maximum', entries: 7 }),
    });
    expect(verifierAnalysis.findings).toEqual([]);
    expect(verifierAnalysis.checkpointsVerified).toBe(7);
    expect(verifierAnalysis.resolvedTier).toBe('maximum');
  });
});
