// Hostile suite, issue 12 rows a, k and l (URL half): nothing in a bundle chooses which revocation list
// applies, an older list is refused after a restart, and list URLs never leak credentials into /verify.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentList, type RunningService, revoke, startService, tempDir } from '@proto/revocation/testing';
import { ConfigError } from '@proto/service-kit';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { type FrontHandler, type HostileFront, redirectTo, startHostileFront } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVerificationApp } from '../../src/app.ts';
import { loadVerificationConfig } from '../../src/config.ts';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

type Tier = 'routine' | 'standard' | 'elevated' | 'maximum';

let us: RunningService;
let fr: RunningService;
const dirs: { remove(): void }[] = [];
let usKey: string;
let frKey: string;
/** A loopback mirror serving whatever `served` holds (row k) and echoing its request URL (row l). */
let mirror: HostileFront;
let served = '';
let mirrorStatus = 200;

let both: RunningApp; // US and FR sources
let allowZz: RunningApp; // same, with ZZ in the allow-list of unlisted jurisdictions

const source = (url: string, key: string) => ({ url, keys: [key] });

/** A builder bundle whose RPR declares `jurisdiction` (signed after the change, so fully valid). */
function bundleDeclaring(jurisdiction: string, tier: Tier = 'elevated') {
  return sampleBundle({
    tier,
    hooks: {
      payloads: (payloads) => {
        (payloads.responsible_principal_record as Record<string, unknown>)['jurisdiction'] = jurisdiction;
      },
    },
  });
}

const checksOf = (json: Record<string, unknown>) => json['checks'] as Record<string, string>;
const detailsOf = (json: Record<string, unknown>) =>
  (json['error_details'] ?? []) as { code: string; check: string; message: string; retryable: boolean }[];

/** The mirror's list answer: whatever `served` holds, or `mirrorStatus` echoing the URL asked. */
const serveList: FrontHandler = (request, res) => {
  res.writeHead(mirrorStatus, { 'content-type': 'application/json', 'cache-control': 'max-age=0' });
  res.end(mirrorStatus === 200 ? served : JSON.stringify({ echoed: request.url }));
};

async function keyOf(service: RunningService): Promise<string> {
  const health = (await (await fetch(`${service.url}/health`)).json()) as Record<string, unknown>;
  return health['revocation_public_key_b64'] as string;
}

beforeAll(async () => {
  const usDir = tempDir('hostile-us');
  const frDir = tempDir('hostile-fr');
  dirs.push(usDir, frDir);
  // max-age 0: every check revalidates, so a revocation is seen at the next request.
  [us, fr] = await Promise.all([
    startService({
      dataDir: usDir.dir,
      env: {
        JURISDICTION: 'US',
        ISSUER: 'did:web:revocation.example.us',
        LIST_MAX_AGE_S: '0',
        LOG_LEVEL: 'warn',
      },
      timer: false,
    }),
    startService({
      dataDir: frDir.dir,
      env: { JURISDICTION: 'FR', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
      timer: false,
    }),
  ]);
  [usKey, frKey] = await Promise.all([keyOf(us), keyOf(fr)]);

  mirror = await startHostileFront({
    // Where a redirect could lead: here the real list, elsewhere plain http: to anyone.
    '/redirect.json': (_request, res) => redirectTo(res, us.listUrl, 302),
    '/list.json': serveList,
    '/replica.json': serveList,
  });

  const sources = JSON.stringify({ US: source(us.listUrl, usKey), FR: source(fr.listUrl, frKey) });
  // Load shedding off (as the revocation test support does): a busy test machine must not answer 503.
  const common = {
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    REVOCATION_SOURCES: sources,
  };
  [both, allowZz] = await Promise.all([
    startApp(common),
    startApp({ ...common, REVOCATION_UNLISTED_JURISDICTIONS: 'ZZ' }),
  ]);
});

afterAll(async () => {
  await Promise.all([both, allowZz].map((app) => app?.close()));
  await mirror?.close();
  await Promise.all([us, fr].map((service) => service?.close()));
  for (const dir of dirs) dir.remove();
});

describe('row a: the bundle cannot choose its revocation list', () => {
  it("row a: a bundle re-signed with jurisdiction 'us' is still checked against the US list", async () => {
    const sample = bundleDeclaring('us');
    expect((await revoke(us, sample.agentId!)).status).toBe(201);
    const { status, json } = await postVerify(both.url, { signed_bundle: sample.signed_bundle });
    expect(status).toBe(200);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: false, resolved_tier: 'elevated' });
    expect(checksOf(json)['revocation']).toBe('fail');
    expect(detailsOf(json)).toEqual([
      expect.objectContaining({ code: 'PROTO-E300', check: 'revocation', retryable: false }),
    ]);
  });

  it("row a: a bundle re-signed with jurisdiction 'ZZ' is still checked against the US list", async () => {
    const sample = bundleDeclaring('ZZ', 'standard');
    expect((await revoke(us, sample.agentId!)).status).toBe(201);
    for (const app of [both, allowZz]) {
      const { json } = await postVerify(app.url, { signed_bundle: sample.signed_bundle });
      expect(json, JSON.stringify(json)).toMatchObject({ verified: false });
      expect(detailsOf(json)).toEqual([expect.objectContaining({ code: 'PROTO-E300', retryable: false })]);
    }
  });

  it("row a: a bundle declaring 'FR' is checked against the US list too", async () => {
    const sample = bundleDeclaring('FR');
    expect((await revoke(us, sample.agentId!)).status).toBe(201);
    const { json } = await postVerify(both.url, { signed_bundle: sample.signed_bundle });
    expect(json, JSON.stringify(json)).toMatchObject({ verified: false });
    expect(detailsOf(json)).toEqual([expect.objectContaining({ code: 'PROTO-E300' })]);
  });

  it('row a: a signer kid revoked in another jurisdiction’s list fails a bundle declaring US', async () => {
    const sample = bundleDeclaring('US');
    const clean = await postVerify(both.url, { signed_bundle: sample.signed_bundle });
    expect(clean.json, JSON.stringify(clean.json)).toMatchObject({ verified: true });
    expect((await revoke(fr, sample.agentKid)).status).toBe(201);
    const { json } = await postVerify(both.url, { signed_bundle: sample.signed_bundle });
    expect(json, JSON.stringify(json)).toMatchObject({ verified: false });
    expect(detailsOf(json)).toEqual([
      expect.objectContaining({ code: 'PROTO-E300', message: expect.stringContaining(sample.agentKid) }),
    ]);
  });

  it('row a: a principal binding key revoked in a list fails the bundle', async () => {
    const sample = bundleDeclaring('US');
    expect((await revoke(fr, sample.keys.principal.classical.kid)).status).toBe(201);
    const { json } = await postVerify(both.url, { signed_bundle: sample.signed_bundle });
    expect(json, JSON.stringify(json)).toMatchObject({ verified: false });
    expect(detailsOf(json)).toEqual([expect.objectContaining({ code: 'PROTO-E300' })]);
  });

  it("row a: lower-case 'us' is normalised: an unrevoked agent passes at elevated against the US list", async () => {
    const { json } = await postVerify(both.url, { signed_bundle: bundleDeclaring('us').signed_bundle });
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, resolved_tier: 'elevated' });
    expect(checksOf(json)['revocation']).toBe('pass');
  });

  it("row a: a jurisdiction without a source ('ZZ') fails closed at elevated unless the operator allow-lists it", async () => {
    const elevated = bundleDeclaring('ZZ', 'elevated');
    const high = await postVerify(both.url, { signed_bundle: elevated.signed_bundle });
    expect(high.json, JSON.stringify(high.json)).toMatchObject({ verified: false });
    expect(checksOf(high.json)['revocation']).toBe('fail');
    expect(detailsOf(high.json)).toEqual([
      expect.objectContaining({
        code: 'PROTO-E401',
        check: 'revocation',
        retryable: false,
        message: expect.stringContaining('ZZ'),
      }),
    ]);
    const allowed = await postVerify(allowZz.url, { signed_bundle: elevated.signed_bundle });
    expect(allowed.json, JSON.stringify(allowed.json)).toMatchObject({ verified: true });
    expect(checksOf(allowed.json)['revocation']).toBe('skipped');
    expect(allowed.json['warnings']).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/no revocation source is configured for jurisdiction ZZ/),
      ]),
    );
    const low = await postVerify(both.url, {
      signed_bundle: bundleDeclaring('ZZ', 'standard').signed_bundle,
    });
    expect(low.json, JSON.stringify(low.json)).toMatchObject({ verified: true });
    expect(low.json['warnings']).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/no revocation source is configured for jurisdiction ZZ/),
      ]),
    );
  });

  it.each([['U$'], ['usa'], ['United States'], ['U S'], ['EU-AI-Act-2025-Compliant']])(
    'row a: a malformed jurisdiction code %j is a schema error at every tier',
    async (code) => {
      const { status, json } = await postVerify(both.url, {
        signed_bundle: bundleDeclaring(code, 'routine').signed_bundle,
      });
      expect(status).toBe(200);
      expect(json, JSON.stringify(json)).toMatchObject({ verified: false });
      expect(detailsOf(json)).toEqual([
        expect.objectContaining({ code: 'PROTO-E002', check: 'revocation', retryable: false }),
      ]);
    },
  );
});

/** A verification app whose list sources and watermark store the test chooses. */
async function startVerifier(
  env: Record<string, string>,
  store: StoreTarget['options'] | undefined,
): Promise<RunningApp> {
  const config = loadVerificationConfig({
    LOG_LEVEL: 'silent',
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    HOST: '127.0.0.1',
    PORT: '0',
    ...env,
  });
  const app = await buildVerificationApp({
    config,
    ...(store === undefined ? {} : { revocationStore: store }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

describe('row k: the highest list_number survives a restart', () => {
  it('row k: a restarted verifier refuses an older, still-fresh list (SQLite under DATA_DIR)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'proto-hostile-k-'));
    try {
      const env = {
        DATA_DIR: dataDir,
        REVOCATION_SOURCES: JSON.stringify({ US: source(`${mirror.url}/list.json`, usKey) }),
      };
      const victim = bundleDeclaring('US', 'standard');
      await revoke(us, victim.agentId!);
      const older = JSON.stringify(await currentList(us));
      await revoke(us, `agent:row-k-${Date.now()}`);
      served = JSON.stringify(await currentList(us));
      const first = await startVerifier(env, undefined);
      const accepted = await postVerify(first.url, { signed_bundle: bundleDeclaring('US').signed_bundle });
      expect(checksOf(accepted.json)['revocation'], JSON.stringify(accepted.json)).toBe('pass');
      await first.close();

      served = older; // authentic, signed, still before its next_update: only a rollback
      const restarted = await startVerifier(env, undefined);
      try {
        const high = await postVerify(restarted.url, { signed_bundle: bundleDeclaring('US').signed_bundle });
        expect(high.json, JSON.stringify(high.json)).toMatchObject({ verified: false });
        expect(detailsOf(high.json)).toEqual([
          expect.objectContaining({
            code: 'PROTO-E701',
            message: expect.stringMatching(/lower than/),
          }),
        ]);
        const low = await postVerify(restarted.url, {
          signed_bundle: bundleDeclaring('US', 'standard').signed_bundle,
        });
        expect(checksOf(low.json)['revocation']).toBe('skipped');
        expect(low.json['warnings']).toEqual(
          expect.arrayContaining([expect.stringMatching(/revocation list number \d+ is lower than/)]),
        );
        // The refused list is still authentic: the revocations it carries are proven (and permanent).
        const stillRevoked = await postVerify(restarted.url, { signed_bundle: victim.signed_bundle });
        expect(detailsOf(stillRevoked.json), JSON.stringify(stillRevoked.json)).toEqual([
          expect.objectContaining({ code: 'PROTO-E300' }),
        ]);
      } finally {
        await restarted.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe.each(dialectsUnderTest())('row k on %s', (dialect) => {
    let target: StoreTarget;
    beforeAll(async () => {
      target = await createStoreTarget(dialect, 'hostile-row-k');
    });
    afterAll(async () => {
      await target?.cleanup();
    });

    it('row k: a new replica sharing the store refuses an older list another replica moved past', async () => {
      const env = { REVOCATION_SOURCES: JSON.stringify({ US: source(`${mirror.url}/replica.json`, usKey) }) };
      const older = JSON.stringify(await currentList(us));
      await revoke(us, `agent:row-k-replica-${Date.now()}`);
      served = JSON.stringify(await currentList(us));
      const first = await startVerifier(env, target.options);
      try {
        const accepted = await postVerify(first.url, { signed_bundle: bundleDeclaring('US').signed_bundle });
        expect(checksOf(accepted.json)['revocation'], JSON.stringify(accepted.json)).toBe('pass');
        served = older;
        const replica = await startVerifier(env, target.options);
        try {
          const { json } = await postVerify(replica.url, {
            signed_bundle: bundleDeclaring('US').signed_bundle,
          });
          expect(json, JSON.stringify(json)).toMatchObject({ verified: false });
          expect(detailsOf(json)).toEqual([
            expect.objectContaining({ code: 'PROTO-E701', message: expect.stringMatching(/lower than/) }),
          ]);
        } finally {
          await replica.close();
        }
      } finally {
        await first.close();
      }
    });
  });

  it('row k: a revocation source over plain http: to a non-loopback host is refused at boot unless opted in', async () => {
    const sources = JSON.stringify({ US: source('http://revocation.example.us/list.json', usKey) });
    expect(() => loadVerificationConfig({ REVOCATION_SOURCES: sources })).toThrow(ConfigError);
    expect(() => loadVerificationConfig({ REVOCATION_SOURCES: sources })).toThrow(/https/);
    await expect(startApp({ REVOCATION_SOURCES: sources })).rejects.toThrow(/REVOCATION_SOURCES/);
    const optedIn = loadVerificationConfig({
      REVOCATION_SOURCES: sources,
      REVOCATION_ALLOW_INSECURE_HTTP: 'true',
    });
    expect(optedIn.REVOCATION_SOURCES['US']?.url).toBe('http://revocation.example.us/list.json');
    for (const loopback of [
      'http://127.0.0.1:1/l.json',
      'http://127.9.9.9/l.json',
      'http://[::1]:8/l.json',
      'http://localhost/l.json',
    ]) {
      const config = loadVerificationConfig({
        REVOCATION_SOURCES: JSON.stringify({ US: source(loopback, usKey) }),
      });
      expect(config.REVOCATION_SOURCES['US']?.url).toBe(loopback);
    }
  });
});

describe('row k: redirects', () => {
  it('row k: a redirect from the configured source is not followed (it could lead to plain http:)', async () => {
    const app = await startApp({
      VERIFY_WORKERS: '1',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      REVOCATION_SOURCES: JSON.stringify({ US: source(`${mirror.url}/redirect.json`, usKey) }),
    });
    try {
      const { json } = await postVerify(app.url, { signed_bundle: bundleDeclaring('US').signed_bundle });
      expect(json, JSON.stringify(json)).toMatchObject({ verified: false });
      expect(detailsOf(json)).toEqual([
        expect.objectContaining({
          code: 'PROTO-E701',
          message: expect.stringMatching(/HTTP 302.*redirects are not followed/),
        }),
      ]);
    } finally {
      await app.close();
    }
  });
});

describe('row l: revocation source URLs never reach /verify with their secrets', () => {
  it('row l: a source URL with userinfo and a query token is shown without them in /verify warnings and errors', async () => {
    mirrorStatus = 503;
    const secretUrl = `${mirror.url.replace('http://', 'http://listuser:s3cr3t-pass@')}/list.json?token=tok-s3cr3t&x=1`;
    const app = await startApp({
      VERIFY_WORKERS: '1',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      REVOCATION_SOURCES: JSON.stringify({ US: source(secretUrl, usKey) }),
    });
    try {
      for (const tier of ['standard', 'elevated'] as const) {
        const { json } = await postVerify(app.url, {
          signed_bundle: bundleDeclaring('US', tier).signed_bundle,
        });
        const text = JSON.stringify(json);
        expect(checksOf(json)['revocation'], text).not.toBe('pass');
        // The source is named (so the operator can tell which one failed), its secrets are not.
        expect(text).toContain(`${mirror.url}/list.json`);
        expect(text).not.toMatch(/s3cr3t|listuser|token=/);
      }
      // The secrets still reach the source: userinfo as Basic credentials, the query as given.
      const last = mirror.requests.at(-1);
      expect({ url: last?.url, authorization: last?.headers.authorization }).toEqual({
        url: '/list.json?token=tok-s3cr3t&x=1',
        authorization: `Basic ${Buffer.from('listuser:s3cr3t-pass').toString('base64')}`,
      });
    } finally {
      mirrorStatus = 200;
      await app.close();
    }
  });
});
