// P229: a verification thread hands a verified bundle's passport keys to the main thread in full once per refresh
// period and only their evidence in between; the key directory's feeder answers the evidence from the passports
// it applied, and a passport it could not apply is applied at the next full hand-over. Real worker threads, a
// real SQLite store.
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from './config.ts';
import { VerifyPool } from './pool.ts';
import { keyBindingFeeder } from './records/key-binding-feeder.ts';
import { sampleBundle } from './test-support.ts';
import { portableVerifierOptions } from './verifier-options.ts';
import type { VerifyTask, VerifyTaskResult } from './worker.ts';

const bundle = sampleBundle({ tier: 'standard', entries: 4 });
const body = () => new TextEncoder().encode(JSON.stringify({ signed_bundle: bundle.signed_bundle }));
const task = (): VerifyTask => ({
  body: body(),
  format: 'json',
  wantAnalysis: false,
  wantBindings: true,
  now: Date.now(),
  answer: 'json',
  revocationConfigured: false,
});

function poolWith(passportRefreshMs?: number): VerifyPool {
  const config = loadVerificationConfig({ ...process.env, VERIFY_WORKERS: '1' });
  return new VerifyPool({
    threads: 1,
    minThreads: 1,
    idleTimeoutMs: 60_000,
    maxQueue: 16,
    verifier: portableVerifierOptions(config),
    ...(passportRefreshMs === undefined ? {} : { passportRefreshMs }),
  });
}

const handed = (result: VerifyTaskResult) => {
  if (result.kind === 'bad_request') throw new Error(result.message);
  return { passport: result.passport, evidence: result.passportEvidence };
};

describe('a thread hands a passport over in full once per refresh period (P229)', () => {
  const pools: VerifyPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('sends the keys with the first verified bundle and only their evidence with the next ones', async () => {
    const pool = poolWith();
    pools.push(pool);
    const first = handed(await pool.run(task()));
    expect(first.passport?.bindings.length).toBeGreaterThan(0);
    expect(first.evidence).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const next = handed(await pool.run(task()));
      expect(next.passport).toBeUndefined();
      expect(next.evidence).toBe(first.passport?.evidence);
    }
  });

  it('sends the keys again once the refresh period has passed', async () => {
    const pool = poolWith(0);
    pools.push(pool);
    for (let i = 0; i < 3; i++) {
      const each = handed(await pool.run(task()));
      expect(each.passport?.bindings.length).toBeGreaterThan(0);
      expect(each.evidence).toBeUndefined();
    }
  });

  it('keeps handing the keys over in full while the cache keeps the analysis', async () => {
    const pool = poolWith();
    pools.push(pool);
    for (let i = 0; i < 2; i++) {
      const each = handed(await pool.run({ ...task(), wantAnalysis: true }));
      expect(each.passport?.bindings.length).toBeGreaterThan(0);
    }
  });
});

describe('the feeder answers a passport known by its evidence (P229)', () => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget('sqlite', 'passport-handover');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('applies full passports, answers their evidence from what it applied, and refuses evidence it never applied', async () => {
    const pool = poolWith();
    const first = handed(await pool.run(task()));
    await pool.close();
    const passport = first.passport;
    if (passport === undefined) throw new Error('no passport handed over');
    const kid = passport.bindings[0]?.kid;
    if (kid === undefined) throw new Error('no binding');

    const store = await target.open();
    const warnings: object[] = [];
    const feed = keyBindingFeeder(store, { warn: (obj) => warnings.push(obj) });
    const known = { verified: true, version: '2.0', passport: { evidence: passport.evidence } };

    // Evidence alone, never applied here: nothing to apply, nothing stored.
    expect(await feed(known)).toBe(false);
    expect(await store.keys.lookup(kid)).toEqual([]);

    // The next full hand-over is applied; its evidence is then answered from the feeder's set.
    expect(await feed({ ...known, passport })).toBe(true);
    expect((await store.keys.lookup(kid)).length).toBeGreaterThan(0);
    expect(await feed(known)).toBe(true);
    expect(warnings).toEqual([]);
  });
});
