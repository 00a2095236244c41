// createVerifier: option validation, effective settings, request handling, version routing, and the
// analyze/finalize split (time-dependent checks re-run on every finalize). DECISIONS D1, D5, D8, D11, D12.
import { describe, expect, it } from 'vitest';
import { buildSignedBundle } from './build/index.ts';
import { backend, codes, FIXED_NOW, type J, makeVerifier } from './test-support.ts';
import { createVerifier } from './verifier.ts';

describe('createVerifier options', () => {
  it('fills every default and reports them as plain settings', () => {
    const result = createVerifier({});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.profile.name).toBe('proto');
    expect(result.value.settings).toEqual({
      profile: 'proto',
      mode: 'hybrid_preferred',
      policy: {
        default_mode: 'hybrid_preferred',
        risk_overrides: { low: 'classical_only', medium: 'hybrid_preferred', high: 'hybrid_required' },
        min_accepted_version: '1.0',
        accepted_algorithms: { signing: ['ed25519', 'ml-dsa-65'], hash: ['sha256', 'sha3-256'] },
      },
      advisoryRejectedAlgs: [],
      requireSessionBinding: true,
      requireCompositeBinding: true,
      requireSessionExpiry: false,
      requireAudienceBinding: false,
      verifierId: null,
      requirePrincipalSignature: false,
      maxKeyAgeDays: 365,
      attestationMaxAgeDays: 30,
      allowV1Bundles: true,
      checkpointInterval: null,
      maxAuditEntries: 10_000,
      maxCheckpoints: 10_000,
      acceptedVersions: ['1.0', '2.0'],
      backend: backend.name,
    });
    // JSON-serialisable (for /health and cache keys).
    expect(JSON.parse(JSON.stringify(result.value.settings))).toEqual(result.value.settings);
  });

  it.each([
    [{ profile: 'PROTO' }, 'profile must be "proto" or "dcp-ai"'],
    [{ mode: 'hybrid' }, 'mode must be one of'],
    [{ maxKeyAgeDays: 0 }, 'maxKeyAgeDays must be an integer >= 1'],
    [{ maxKeyAgeDays: 1.5 }, 'maxKeyAgeDays must be an integer >= 1'],
    [{ checkpointInterval: -1 }, 'checkpointInterval must be an integer >= 1'],
    [{ maxAuditEntries: Number.MAX_VALUE }, 'maxAuditEntries must be an integer >= 1'],
    [{ requireSessionBinding: 'yes' }, 'requireSessionBinding must be true or false'],
    [{ requireAudienceBinding: true }, 'requireAudienceBinding needs verifierId'],
    [{ verifierId: '' }, 'verifierId must be a non-empty string'],
    [{ backend: {} }, 'backend must be a CryptoBackend'],
    [{ clock: 'now' }, 'clock must be a function'],
    [{ cacheTtl: 5 }, 'unknown option cacheTtl'],
    [{ policy: 'strict' }, 'Invalid verifier policy: expected a JSON object'],
    [{ policy: { default_mode: 'fast' } }, 'default_mode must be one of'],
    [
      { policy: { default_mode: 'pq_only', min_accepted_version: '3.0' } },
      'min_accepted_version 3.0 is above every supported version',
    ],
    [
      { policy: { default_mode: 'pq_only', accepted_algorithms: { signing: ['rsa'] } } },
      'accepted_algorithms.signing[0] must be one of',
    ],
    [
      { policy: { default_mode: 'pq_only', risk_overrides: { low: 'none' } } },
      'risk_overrides.low must be one of',
    ],
  ])('%j is refused with a clear message', (options, message) => {
    const result = createVerifier(options as never);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain(message);
  });

  it('an explicit option wins over the same policy member, which wins over the default', () => {
    const policy = {
      default_mode: 'hybrid_preferred',
      require_session_binding: false,
      max_key_age_days: 30,
      allow_v1_bundles: false,
    };
    const fromPolicy = createVerifier({ policy });
    const explicit = createVerifier({ policy, requireSessionBinding: true, maxKeyAgeDays: 90 });
    if (!fromPolicy.ok || !explicit.ok) throw new Error('valid options refused');
    expect(fromPolicy.value.settings).toMatchObject({
      requireSessionBinding: false,
      maxKeyAgeDays: 30,
      allowV1Bundles: false,
      acceptedVersions: ['2.0'],
    });
    expect(explicit.value.settings).toMatchObject({ requireSessionBinding: true, maxKeyAgeDays: 90 });
  });

  it('an advisory-rejected algorithm fails every signature using it (E401)', () => {
    const signed = buildSignedBundle({ now: FIXED_NOW, backend }).signed_bundle;
    const verifier = makeVerifier({
      policy: { default_mode: 'hybrid_preferred', advisory_rejected_algs: ['ml-dsa-65'] },
    });
    const response = verifier.verify({ signed_bundle: signed });
    expect(response.verified).toBe(false);
    expect(new Set(codes(response))).toEqual(new Set(['PROTO-E401']));
  });
});

describe('requests and version routing', () => {
  const verifier = makeVerifier();

  it.each([[undefined], [null], [42], ['text'], [[]], [{}], [{ public_key_b64: 'x' }]])(
    'a request without signed_bundle (%j) is E001 on check request',
    (request) => {
      const response = verifier.verify(request);
      expect(response).toEqual({
        verified: false,
        version: 'unknown',
        checks: {},
        errors: ['Missing signed_bundle in body'],
        error_details: [
          {
            code: 'PROTO-E001',
            check: 'request',
            message: 'Missing signed_bundle in body',
            retryable: false,
          },
        ],
      });
    },
  );

  it('a non-string public_key_b64 is E001 on check request', () => {
    const response = verifier.verify({ signed_bundle: {}, public_key_b64: 7 });
    expect(response.error_details?.[0]).toMatchObject({ code: 'PROTO-E001', check: 'request' });
  });

  it('the legacy root-tooling format is rejected with E003 and named (PROTOCOL §6.11)', () => {
    const legacy = {
      dcp_version: '2.0',
      bundle: {},
      bundle_manifest: { schema_version: '2.0' },
      signature: { binding: 'composite', domain_sep: 'DCP-BUNDLE-SIG-v2' },
    };
    const response = verifier.verify({ signed_bundle: legacy });
    expect(response.verified).toBe(false);
    expect(response.version).toBe('legacy-v2');
    expect(response.error_details?.[0]?.code).toBe('PROTO-E003');
    expect(response.errors?.[0]).toContain('Legacy root-tooling "V2" format');
  });

  it('anything else is not a recognised bundle (E001)', () => {
    const response = verifier.verify({ signed_bundle: { bundle: { hello: 1 }, signature: {} } });
    expect(response).toMatchObject({ verified: false, version: 'unknown', checks: { schema: 'fail' } });
    expect(codes(response)).toEqual(['PROTO-E001']);
  });

  it('a request public_key_b64 is ignored for V2, with a warning', () => {
    const signed = buildSignedBundle({ now: FIXED_NOW, backend }).signed_bundle;
    const response = verifier.verify({ signed_bundle: signed, public_key_b64: 'AAAA' });
    expect(response.verified).toBe(true);
    expect(response.warnings).toContain(
      'public_key_b64 in the request is ignored for V2 bundles (keys come from passport and RPR)',
    );
  });

  it('caps audit entries and checkpoints before any per-entry work (E001)', () => {
    const signed = buildSignedBundle({ now: FIXED_NOW, backend, entries: 5 }).signed_bundle;
    expect(codes(makeVerifier({ maxAuditEntries: 4 }).verify({ signed_bundle: signed }))).toEqual([
      'PROTO-E001',
    ]);
    expect(makeVerifier({ maxAuditEntries: 5 }).verify({ signed_bundle: signed }).verified).toBe(true);
    expect(codes(makeVerifier({ maxCheckpoints: 0 }).verify({ signed_bundle: signed }))).toEqual([
      'PROTO-E001',
    ]);
  });
});

describe('analyze/finalize (time-dependent checks are never cached)', () => {
  const signed = buildSignedBundle({
    now: FIXED_NOW,
    backend,
    hooks: {
      manifest: (m) => {
        m['session_expires_at'] = '2026-11-22T13:00:00Z';
      },
    },
  }).signed_bundle as J;
  const verifier = makeVerifier();
  const analysis = verifier.analyze({ signed_bundle: signed });

  it('the analysis is frozen plain data', () => {
    expect(Object.isFrozen(analysis)).toBe(true);
    expect(analysis.findings).toEqual([]);
    expect(JSON.parse(JSON.stringify(analysis))).toEqual(analysis);
  });

  it('session expiry is re-evaluated at every finalize (E501, retryable as TS marks it)', () => {
    expect(verifier.finalize(analysis, new Date('2026-11-22T12:59:59Z')).verified).toBe(true);
    const late = verifier.finalize(analysis, new Date('2026-11-22T13:00:00Z'));
    expect(late.verified).toBe(false);
    expect(late.checks.session_nonce).toBe('fail');
    expect(late.error_details).toEqual([
      {
        code: 'PROTO-E501',
        check: 'session_nonce',
        message: 'Session expired at 2026-11-22T13:00:00Z',
        retryable: true,
      },
    ]);
    // The cached analysis is unchanged and still good for an earlier clock.
    expect(verifier.finalize(analysis, FIXED_NOW).verified).toBe(true);
  });

  it('key age is measured at finalize against MAX_KEY_AGE_DAYS (E301)', () => {
    const keyCreated = Date.parse(String(analysis.timeDependent.signingKeys[0]?.createdAt));
    const later = new Date(keyCreated + 366 * 86_400_000);
    const noExpiry = buildSignedBundle({
      now: FIXED_NOW,
      backend,
      sessionTtlSeconds: 10 * 365 * 86_400,
    }).signed_bundle;
    const fresh = verifier.analyze({ signed_bundle: noExpiry });
    const old = verifier.finalize(fresh, later);
    expect(old.checks.key_validity).toBe('fail');
    expect(new Set(codes(old))).toContain('PROTO-E301');
    expect(old.errors?.some((m) => m.includes('exceeds max age of 365 days'))).toBe(true);
  });

  it('an invalid clock reading is an internal error, not an exception', () => {
    expect(codes(verifier.finalize(analysis, new Date(Number.NaN)))).toEqual(['PROTO-E900']);
    const broken = makeVerifier({
      clock: () => {
        throw new Error('no clock');
      },
    });
    expect(codes(broken.verify({ signed_bundle: signed }))).toEqual(['PROTO-E900']);
  });

  it('verify = finalize(analyze(request), clock())', () => {
    expect(verifier.verify({ signed_bundle: signed })).toEqual(verifier.finalize(analysis, FIXED_NOW));
  });
});

describe('last-resort conversion of exceptions', () => {
  it('a request whose getters throw becomes E900 instead of an exception', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        has() {
          throw new Error('boom');
        },
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
      },
    );
    const response = makeVerifier().verify({ signed_bundle: { bundle: hostile, signature: hostile } });
    expect(response.verified).toBe(false);
    expect(codes(response)).toEqual(['PROTO-E900']);
  });
});
