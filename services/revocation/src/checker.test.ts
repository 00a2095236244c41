// The verifier's revocation checker against the real revocation service: E300 for revoked agents, the
// cached list revalidated by conditional GET (304), and refusals of rolled-back, tampered, stale lists. D20.
import { createRevocationChecker, type RevocationCheckerOptions, watermarkKey } from '@proto/service-kit';
import { openStore } from '@proto/store';
import { freePort } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JURISDICTION, type RunningService, revoke, startService, tempDir } from './test-support.ts';

let service: RunningService;
let publicKey: string;
const dir = tempDir('checker');

beforeAll(async () => {
  service = await startService({ dataDir: dir.dir });
  publicKey = ((await (await fetch(`${service.url}/health`)).json()) as { revocation_public_key_b64: string })
    .revocation_public_key_b64;
});
afterAll(async () => {
  await service?.close();
  dir.remove();
});

/** A checker on the real service with a clock the test moves. */
function checker(overrides: Partial<RevocationCheckerOptions> = {}) {
  let now = Date.now();
  const revoked: string[] = [];
  const instance = createRevocationChecker({
    sources: { [JURISDICTION]: { url: service.listUrl, keys: [publicKey] } },
    timeoutMs: 2000,
    clock: () => new Date(now),
    failureBackoffMs: 0,
    onNewRevocation: (agentId) => revoked.push(agentId),
    ...overrides,
  });
  return {
    instance,
    revoked,
    advance(seconds: number) {
      now += seconds * 1000;
    },
    check(agentId: string, tier: 'routine' | 'standard' | 'elevated' | 'maximum' = 'elevated') {
      return instance.check({ jurisdiction: JURISDICTION, agentId, signerIds: [], tier });
    },
  };
}

const listRequests = () =>
  service.seen.filter((r) => r.url === service.app.protocolProfile.wellKnown.revocations);

/** Fetch that answers with a fixed body instead of asking the service (a replaying or tampering mirror). */
function serving(body: () => string): typeof fetch {
  return async () =>
    new Response(body(), {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' },
    });
}

describe('revocation checker against the running service', () => {
  it('fails a revoked agent with E300 once the cached list is revalidated; 304 renews an unchanged list', async () => {
    const c = checker();
    const before = listRequests().length;
    expect(await c.check('agent:alive-1')).toEqual({ status: 'pass', list_number: expect.any(Number) });
    expect(await c.check('agent:alive-1')).toMatchObject({ status: 'pass' });
    expect(listRequests().length).toBe(before + 1); // the second check used the cached list

    expect((await revoke(service, 'agent:evil-1')).status).toBe(201);
    // Within max-age the cached list is used as is (the list is cached, never the verdict).
    expect((await c.check('agent:evil-1')).status).toBe('pass');
    c.advance(301);
    const etag = c.instance.state(JURISDICTION)?.etag;
    const revoked = await c.check('agent:evil-1');
    expect(revoked).toMatchObject({
      status: 'fail',
      code: 'PROTO-E300',
      retryable: false,
      entry: { agent_id: 'agent:evil-1' },
    });
    expect(c.revoked).toContain('agent:evil-1');
    const changed = listRequests().at(-1);
    expect(changed).toMatchObject({ ifNoneMatch: etag, status: 200 });

    // Nothing changed since: the conditional GET is answered 304 and the cached list stays in use.
    c.advance(301);
    expect(await c.check('agent:evil-1')).toMatchObject({ status: 'fail', code: 'PROTO-E300' });
    expect(await c.check('agent:alive-1')).toMatchObject({ status: 'pass' });
    const last = listRequests().at(-1);
    expect(last).toMatchObject({ ifNoneMatch: c.instance.state(JURISDICTION)?.etag, status: 304 });
    expect(c.revoked.filter((id) => id === 'agent:evil-1')).toHaveLength(1);
  });

  it('also fails when a signer id is revoked, at every tier', async () => {
    await revoke(service, 'agent:signer-gone');
    const c = checker();
    for (const tier of ['routine', 'standard', 'elevated', 'maximum'] as const) {
      const result = await c.instance.check({
        jurisdiction: JURISDICTION,
        agentId: 'agent:ok-2',
        signerIds: ['agent:signer-gone'],
        tier,
      });
      expect(result).toMatchObject({ status: 'fail', code: 'PROTO-E300' });
    }
  });

  it('deduplicates concurrent fetches of one jurisdiction', async () => {
    const c = checker();
    const before = listRequests().length;
    const results = await Promise.all(Array.from({ length: 10 }, () => c.check('agent:alive-1')));
    expect(results.every((r) => r.status === 'pass')).toBe(true);
    expect(listRequests().length).toBe(before + 1);
  });

  it('refuses a rolled-back list (lower list_number): fail E701 at elevated, warning at routine', async () => {
    const oldBody = await (await fetch(service.listUrl)).text();
    await revoke(service, 'agent:after-old-list');
    let replay = false;
    const c = checker({
      fetch: async (url, init) => (replay ? serving(() => oldBody)(url, init) : fetch(url, init)),
    });
    expect((await c.check('agent:alive-1')).status).toBe('pass');
    replay = true;
    c.advance(301);
    const elevated = await c.check('agent:alive-1', 'elevated');
    expect(elevated).toMatchObject({
      status: 'fail',
      code: 'PROTO-E701',
      retryable: true,
      reason: 'rollback',
    });
    const routine = await c.check('agent:alive-1', 'routine');
    expect(routine).toMatchObject({ status: 'skipped', reason: 'rollback' });
    expect(routine.warning).toMatch(/lower than/);
    // What the newer list already proved stays proved.
    expect(await c.check('agent:after-old-list', 'routine')).toMatchObject({
      status: 'fail',
      code: 'PROTO-E300',
    });
  });

  it('refuses a list with a tampered signature or entries: fail at elevated, warning below', async () => {
    await revoke(service, 'agent:hidden-1');
    let body = '';
    const c = checker({ fetch: serving(() => body) });
    const genuine = JSON.parse(await (await fetch(service.listUrl)).text()) as {
      entries: { agent_id: string }[];
    };
    body = JSON.stringify({
      ...genuine,
      entries: genuine.entries.filter((e) => e.agent_id !== 'agent:hidden-1'),
    });
    expect(await c.check('agent:hidden-1', 'maximum')).toMatchObject({
      status: 'fail',
      code: 'PROTO-E701',
      reason: 'bad_signature',
    });
    const standard = await c.check('agent:hidden-1', 'standard');
    expect(standard).toMatchObject({ status: 'skipped', reason: 'bad_signature' });
    expect(standard.warning).toBeDefined();
  });

  it('refuses a stale list (now past next_update): fail at elevated, warning at routine', async () => {
    const c = checker();
    expect((await c.check('agent:alive-1')).status).toBe('pass');
    c.advance(2 * 86_400);
    const elevated = await c.check('agent:alive-1', 'elevated');
    expect(elevated).toMatchObject({ status: 'fail', code: 'PROTO-E701', reason: 'stale' });
    const routine = await c.check('agent:alive-1', 'routine');
    expect(routine).toMatchObject({ status: 'skipped', reason: 'stale' });
    expect(routine.warning).toMatch(/stale/);
    // A stale but authentic list still proves a revocation.
    expect(await c.check('agent:evil-1', 'routine')).toMatchObject({ status: 'fail', code: 'PROTO-E300' });
  });

  it('refuses a list signed by a key it does not trust', async () => {
    const c = checker({
      sources: {
        [JURISDICTION]: { url: service.listUrl, keys: ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='] },
      },
    });
    expect(await c.check('agent:alive-1')).toMatchObject({
      status: 'fail',
      code: 'PROTO-E701',
      reason: 'untrusted_key',
    });
    expect(await c.check('agent:alive-1', 'routine')).toMatchObject({
      status: 'skipped',
      reason: 'untrusted_key',
    });
  });

  it('fails closed when the source is unreachable, and recovers when it answers again', async () => {
    const port = await freePort();
    let down = true;
    const c = checker({
      fetch: (url, init) => (down ? fetch(`http://127.0.0.1:${port}/list.json`, init) : fetch(url, init)),
    });
    expect(await c.check('agent:alive-1', 'elevated')).toMatchObject({
      status: 'fail',
      code: 'PROTO-E701',
      reason: 'unavailable',
    });
    expect(await c.check('agent:alive-1', 'routine')).toMatchObject({
      status: 'skipped',
      reason: 'unavailable',
    });
    down = false;
    expect(await c.check('agent:alive-1', 'elevated')).toMatchObject({ status: 'pass' });
  });

  it('a jurisdiction without a configured source: a warning below elevated, E401 above unless allow-listed', async () => {
    const c = checker();
    const low = await c.instance.check({ jurisdiction: 'DE', agentId: 'agent:alive-1', tier: 'standard' });
    expect(low).toMatchObject({ status: 'skipped', reason: 'no_source' });
    expect(low.warnings).toEqual([
      expect.stringContaining('no revocation source is configured for jurisdiction DE'),
    ]);
    for (const jurisdiction of ['DE', undefined]) {
      expect(
        await c.instance.check({ jurisdiction, agentId: 'agent:alive-1', tier: 'maximum' }),
      ).toMatchObject({ status: 'fail', code: 'PROTO-E401', retryable: false, reason: 'no_source' });
    }
    const allowing = checker({ unlistedJurisdictions: ['de'] });
    expect(
      await allowing.instance.check({ jurisdiction: 'de', agentId: 'agent:alive-1', tier: 'maximum' }),
    ).toMatchObject({ status: 'skipped', reason: 'no_source' });
  });

  it('keeps the highest list number in the store, and fails closed while the store cannot be read', async () => {
    const store = await openStore({ sqliteFile: ':memory:' });
    try {
      const first = checker({ watermarks: store.revocationWatermarks });
      expect(await first.check('agent:alive-1', 'elevated')).toMatchObject({ status: 'pass' });
      const key = watermarkKey(JURISDICTION, { url: service.listUrl, keys: [publicKey] });
      expect(await store.revocationWatermarks.highest(key)).toBe(
        first.instance.state(JURISDICTION)?.listNumber,
      );
    } finally {
      await store.close();
    }
    const broken = checker({ watermarks: store.revocationWatermarks }); // closed: every read throws
    expect(await broken.check('agent:alive-1', 'elevated')).toMatchObject({
      status: 'fail',
      code: 'PROTO-E701',
      reason: 'unavailable',
      message: expect.stringContaining('cannot be read from the store'),
    });
  });

  it('looks every id up in every source, whatever the declared jurisdiction', async () => {
    const c = checker({ unlistedJurisdictions: ['DE'] });
    await revoke(service, 'agent:revoked-elsewhere');
    for (const jurisdiction of ['DE', 'fr', 'FR-75', undefined]) {
      expect(
        await c.instance.check({ jurisdiction, agentId: 'agent:revoked-elsewhere', tier: 'routine' }),
        String(jurisdiction),
      ).toMatchObject({ status: 'fail', code: 'PROTO-E300' });
    }
    expect(
      await c.instance.check({
        jurisdiction: 'FR',
        agentId: 'agent:x1',
        signerIds: ['agent:revoked-elsewhere'],
        tier: 'routine',
      }),
    ).toMatchObject({ status: 'fail', code: 'PROTO-E300' });
    expect(
      await c.instance.check({ jurisdiction: 'F R', agentId: 'agent:alive-1', tier: 'routine' }),
    ).toMatchObject({ status: 'fail', code: 'PROTO-E002', retryable: false });
  });
});
