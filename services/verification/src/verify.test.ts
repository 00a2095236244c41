// POST /verify over a listening server: verdicts in every mode on builder bundles, 400/413 shapes,
// CBOR both ways, the cache, metrics. SPEC.md POST /verify, DECISIONS D9–D12, PROTOCOL §8.2–8.3.
import { buildSignedBundle } from '@proto/core';
import { decodeCbor, encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invalidateByAgent, invalidateByKid } from './app.ts';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

type Sample = ReturnType<typeof sampleBundle>;
const samples: Record<string, Sample> = {};

beforeAll(() => {
  samples['routine'] = sampleBundle({ tier: 'routine', entries: 4 });
  samples['standard'] = sampleBundle({ tier: 'standard', entries: 12 });
  samples['elevated'] = sampleBundle({ tier: 'elevated', entries: 4 });
  samples['maximum'] = sampleBundle({ tier: 'maximum', entries: 6 });
  samples['classicalOnly'] = sampleBundle({ tier: 'routine', entries: 3, classicalOnly: true });
  samples['v1'] = sampleBundle({ version: '1.0', entries: 3 });
});

const request = (name: string) => ({ signed_bundle: samples[name]!.signed_bundle });

/** The same bundle with one audit entry changed after signing (breaks the chain and the roots). */
function tampered(name: string) {
  const copy = structuredClone(samples[name]!.signed_bundle) as {
    bundle: { audit_entries: Record<string, unknown>[] };
  };
  copy.bundle.audit_entries[0]!['outcome'] = 'something_else';
  return { signed_bundle: copy };
}

describe.each([
  [
    'classical_only',
    {
      routine: 'routine',
      standard: 'standard',
      elevated: 'elevated',
      maximum: 'maximum',
      classicalOnly: true,
    },
  ],
  [
    'hybrid_preferred',
    {
      routine: 'standard',
      standard: 'standard',
      elevated: 'elevated',
      maximum: 'maximum',
      classicalOnly: true,
    },
  ],
  [
    'hybrid_required',
    {
      routine: 'elevated',
      standard: 'elevated',
      elevated: 'elevated',
      maximum: 'maximum',
      classicalOnly: false,
    },
  ],
  [
    'pq_only',
    {
      routine: 'elevated',
      standard: 'elevated',
      elevated: 'elevated',
      maximum: 'maximum',
      classicalOnly: false,
    },
  ],
] as const)('VERIFIER_MODE=%s', (mode, expected) => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({ VERIFIER_MODE: mode });
  });
  afterAll(() => running.close());

  it.each(['routine', 'standard', 'elevated', 'maximum'] as const)(
    'verifies a hybrid %s bundle at the floor-raised tier (D10)',
    async (tier) => {
      const { status, json } = await postVerify(running.url, request(tier));
      expect(status).toBe(200);
      expect(json, JSON.stringify(json)).toMatchObject({
        verified: true,
        version: '2.0',
        resolved_tier: expected[tier],
      });
      expect(json['checks']).toMatchObject({
        schema: 'pass',
        classical_sig: mode === 'pq_only' ? expect.any(String) : 'pass',
      });
    },
  );

  it('judges a classical-only bundle by the mode (D9)', async () => {
    const { status, json } = await postVerify(running.url, request('classicalOnly'));
    expect(status).toBe(200);
    expect(json['verified'], JSON.stringify(json)).toBe(expected.classicalOnly);
    if (!expected.classicalOnly) {
      expect(json['error_details']).toEqual(
        expect.arrayContaining([expect.objectContaining({ code: expect.stringMatching(/^PROTO-E1\d\d$/) })]),
      );
    }
  });

  it('rejects a tampered bundle with HTTP 200, verified false and coded error details', async () => {
    const { status, json } = await postVerify(running.url, tampered('standard'));
    expect(status).toBe(200);
    expect(json['verified']).toBe(false);
    expect(json['errors']).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(json['error_details']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: expect.stringMatching(/^PROTO-E\d{3}$/),
          check: expect.any(String),
          retryable: false,
        }),
      ]),
    );
  });
});

describe('V1 bundles', () => {
  it('verifies a V1 bundle, and rejects it with E003 when ALLOW_V1_BUNDLES=false (D11)', async () => {
    const on = await startApp({ VERIFIER_MODE: 'classical_only' });
    const off = await startApp({ ALLOW_V1_BUNDLES: 'false' });
    try {
      const accepted = await postVerify(on.url, request('v1'));
      expect(accepted.status).toBe(200);
      expect(accepted.json, JSON.stringify(accepted.json)).toMatchObject({ verified: true, version: '1.0' });
      const refused = await postVerify(off.url, request('v1'));
      expect(refused.status).toBe(200);
      expect(refused.json['verified']).toBe(false);
      expect(refused.json['error_details']).toEqual(
        expect.arrayContaining([expect.objectContaining({ code: 'PROTO-E003' })]),
      );
    } finally {
      await Promise.all([on.close(), off.close()]);
    }
  });
});

const KEY_TYPE = 'public_key_b64 must be a string when present';

describe('request errors', () => {
  let running: RunningApp;
  let uncached: RunningApp;
  beforeAll(async () => {
    running = await startApp();
    uncached = await startApp({ VERIFICATION_CACHE_MAX_ENTRIES: '0' });
  });
  afterAll(() => Promise.all([running.close(), uncached.close()]));

  it.each([
    ['invalid JSON', '{"signed_bundle":', 'Invalid JSON body'],
    ['no signed_bundle', '{"bundle":{}}', 'Missing signed_bundle in body'],
    ['a non-object body', '[1,2]', 'Request body must be a JSON object'],
    ['an empty body', '', 'Request body is empty'],
    // P248: a wrongly typed request member is a bad request, like a wrongly typed signed_bundle.
    ['a number public_key_b64', '{"signed_bundle":{},"public_key_b64":5}', KEY_TYPE],
    ['a null public_key_b64', '{"signed_bundle":{},"public_key_b64":null}', KEY_TYPE],
    ['an object public_key_b64', '{"signed_bundle":{},"public_key_b64":{}}', KEY_TYPE],
  ])('answers %s with 400, verified false and E001 (cache on and off)', async (_label, body, message) => {
    for (const target of [running, uncached]) {
      const { status, json } = await postVerify(target.url, body);
      expect(status).toBe(400);
      expect(json).toEqual({
        verified: false,
        errors: [message],
        error_details: [{ code: 'PROTO-E001', check: 'request', message, retryable: false }],
      });
    }
  });

  it('P248: answers a real bundle sent with public_key_b64: 5 with 400 and E001, every time (cache on and off)', async () => {
    const body = JSON.stringify({
      signed_bundle: buildSignedBundle({ version: '1.0' }).signed_bundle,
      public_key_b64: 5,
    });
    for (const target of [running, uncached, running]) {
      const { status, json } = await postVerify(target.url, body);
      expect(status, JSON.stringify(json)).toBe(400);
      expect(json['error_details']).toEqual([
        { code: 'PROTO-E001', check: 'request', message: KEY_TYPE, retryable: false },
      ]);
    }
  });

  it('P248: answers such an item of /verify/batch with the /verify 400 body, the others with their verdicts', async () => {
    const good = JSON.stringify({ signed_bundle: buildSignedBundle({ version: '1.0' }).signed_bundle });
    const bad = JSON.stringify({ signed_bundle: {}, public_key_b64: 5 });
    const res = await fetch(`${uncached.url}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${good}\n${bad}\n`,
    });
    expect(res.status).toBe(200);
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]?.['verified']).toBe(true);
    expect(lines[1]).toEqual({
      verified: false,
      errors: [KEY_TYPE],
      error_details: [{ code: 'PROTO-E001', check: 'request', message: KEY_TYPE, retryable: false }],
    });
  });

  it('answers a body over 1 MB with 413 in the error shape', async () => {
    const body = JSON.stringify({ signed_bundle: { pad: 'x'.repeat(1_100_000) } });
    const res = await fetch(`${running.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('1048576'), retryable: false },
    });
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await fetch(`${running.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PROTO-E001');
  });
});

describe('CBOR wire format (PROTOCOL §8.2)', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({ VERIFICATION_CACHE_MAX_ENTRIES: '0' });
  });
  afterAll(() => running.close());

  const post = (body: Uint8Array | string, contentType: string, accept?: string) =>
    fetch(`${running.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...(accept ? { accept } : {}) },
      body,
    });

  it('verifies a CBOR request and answers JSON', async () => {
    const res = await post(encodeCbor(request('elevated')), 'application/cbor');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ verified: true, resolved_tier: 'elevated' });
  });

  it('answers CBOR to a JSON request that asks for it, and to a CBOR request', async () => {
    for (const [body, type] of [
      [JSON.stringify(request('standard')), 'application/json'],
      [encodeCbor(request('standard')), 'application/cbor'],
    ] as const) {
      const res = await post(body, type, 'application/cbor');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/cbor');
      expect(decodeCbor(new Uint8Array(await res.arrayBuffer()))).toMatchObject({
        verified: true,
        version: '2.0',
      });
    }
  });

  it('answers bad CBOR with the /verify 400 shape, in CBOR when asked', async () => {
    const res = await post(
      Buffer.from(`a16d${Buffer.from('signed_bundle').toString('hex')}c11a514b67b0`, 'hex'),
      'application/cbor',
      'application/cbor',
    );
    expect(res.status).toBe(400);
    const body = decodeCbor(new Uint8Array(await res.arrayBuffer())) as Record<string, unknown>;
    expect(body).toMatchObject({
      verified: false,
      error_details: [{ code: 'PROTO-E001', check: 'request' }],
    });
    expect((body['errors'] as string[])[0]).toMatch(/not valid CBOR: tags are not allowed/);
  });

  it('reads a key with a leading U+FEFF as a key of its own, as the JSON wire does (P82)', async () => {
    const body = { ...request('standard'), '\uFEFFsigned_bundle': { note: 'not the bundle' } };
    const json = await post(JSON.stringify(body), 'application/json');
    const cbor = await post(encodeCbor(body), 'application/cbor');
    expect(cbor.status).toBe(json.status);
    expect(await cbor.json()).toStrictEqual(await json.json());
  });

  it('answers the first fault in byte order: a `_b64` collision before a float (P82)', async () => {
    // {sig: h'01', sig_b64: "AQ==", x: 1.5}
    const res = await post(
      Buffer.from('a3637369674101677369675f6236346441513d3d6178f93e00', 'hex'),
      'application/cbor',
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: string[]; error_details: { code: string }[] };
    expect(body.error_details[0]?.code).toBe('PROTO-E001');
    expect(body.errors[0]).toBe(
      'Request body is not valid CBOR: key "sig_b64" appears twice after byte-string renaming at byte 7',
    );
  });
});

describe('verification cache (PROTOCOL §8.3)', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp();
  });
  afterAll(() => running.close());

  it('answers a repeated request from the cache; another text or wire format of it is a miss with the same verdict (P235)', async () => {
    const first = await postVerify(running.url, request('elevated'));
    expect(first.headers.get('x-verification-cache')).toBe('miss');
    const again = await postVerify(running.url, request('elevated'));
    expect(again.headers.get('x-verification-cache')).toBe('hit');
    expect(again.json).toEqual(first.json);
    // The key is the exact bytes: the same request as other text (indented) or in CBOR is analysed afresh.
    const second = await postVerify(running.url, JSON.stringify(request('elevated'), null, 1));
    expect(second.headers.get('x-verification-cache')).toBe('miss');
    expect(second.json).toEqual(first.json);
    const cbor = await fetch(`${running.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/cbor' },
      body: encodeCbor(request('elevated')),
    });
    expect(cbor.headers.get('x-verification-cache')).toBe('miss');
  });

  it('re-runs the time-dependent checks on a hit (finalize on every hit)', async () => {
    const shortLived = sampleBundle({ tier: 'standard', entries: 2, sessionTtlSeconds: 2 });
    const body = { signed_bundle: shortLived.signed_bundle };
    const fresh = await postVerify(running.url, body);
    expect(fresh.json['verified']).toBe(true);
    await new Promise((r) => setTimeout(r, 2200));
    const later = await postVerify(running.url, body);
    expect(later.headers.get('x-verification-cache')).toBe('hit');
    expect(later.json['verified']).toBe(false);
    expect(later.json['error_details']).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'PROTO-E501' })]),
    );
  });

  it('evicts by signer kid and by agent id', async () => {
    const body = request('maximum');
    await postVerify(running.url, body);
    expect((await postVerify(running.url, body)).headers.get('x-verification-cache')).toBe('hit');
    expect(invalidateByKid(running.app, samples['maximum']!.agentKid)).toBe(1);
    expect((await postVerify(running.url, body)).headers.get('x-verification-cache')).toBe('miss');
    expect((await postVerify(running.url, body)).headers.get('x-verification-cache')).toBe('hit');
    expect(invalidateByAgent(running.app, samples['maximum']!.agentId!)).toBe(1);
    expect((await postVerify(running.url, body)).headers.get('x-verification-cache')).toBe('miss');
    expect(invalidateByKid(running.app, 'no-such-kid')).toBe(0);
  });

  it('stays off with VERIFICATION_CACHE_MAX_ENTRIES=0', async () => {
    const off = await startApp({ VERIFICATION_CACHE_MAX_ENTRIES: '0' });
    try {
      await postVerify(off.url, request('routine'));
      const again = await postVerify(off.url, request('routine'));
      expect(again.headers.get('x-verification-cache')).toBeNull();
      expect(off.app.verificationCache.size).toBe(0);
    } finally {
      await off.close();
    }
  });
});

describe('metrics exposition', () => {
  it('reports latency and verdicts by tier, cache hits/misses, checkpoints, errors by code, queue depth', async () => {
    const running = await startApp();
    try {
      await postVerify(running.url, request('maximum'));
      await postVerify(running.url, request('maximum'));
      await postVerify(running.url, request('v1'));
      await postVerify(running.url, tampered('standard'));
      await postVerify(running.url, '{');
      const text = await (await fetch(`${running.url}/metrics`)).text();
      expect(text).toMatch(/^proto_verification_duration_seconds_bucket\{le="0\.005",tier="maximum"\} \d+$/m);
      expect(text).toMatch(/^proto_verification_duration_seconds_count\{tier="maximum"\} 2$/m);
      expect(text).toMatch(
        /^proto_bundles_verified_total\{result="verified",version="2\.0",tier="maximum"\} 2$/m,
      );
      expect(text).toMatch(
        /^proto_bundles_verified_total\{result="verified",version="1\.0",tier="none"\} 1$/m,
      );
      expect(text).toMatch(
        /^proto_bundles_verified_total\{result="rejected",version="2\.0",tier="standard"\} 1$/m,
      );
      expect(text).toMatch(/^proto_verify_requests_total\{tier="maximum"\} 2$/m);
      expect(text).toMatch(/^proto_verification_cache_hits_total 1$/m);
      expect(text).toMatch(/^proto_verification_cache_misses_total 3$/m);
      expect(text).toMatch(/^proto_pq_checkpoints_verified_total [1-9]\d*$/m);
      expect(text).toMatch(/^proto_verification_errors_total\{code="PROTO-E001"\} 1$/m);
      expect(text).toMatch(/^proto_verification_errors_total\{code="PROTO-E2\d\d"\} \d+$/m);
      expect(text).toMatch(/^proto_verify_pool_queue_depth 0$/m);
      // Threads start on demand (P71): these requests, one after another, need one or two.
      expect(text).toMatch(/^proto_verify_pool_threads [12]$/m);
      expect(text).toMatch(
        /^proto_http_request_duration_seconds_count\{route="\/verify",method="POST",status_code="200"\} 4$/m,
      );
    } finally {
      await running.close();
    }
  });
});
