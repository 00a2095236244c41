// P566 over HTTP against the real verification service with the /v2 records mounted, on every store dialect. P537
// made a dispute filing hold its respondent's key bindings against pruning (so the respondent's principals stay
// parties, P375), in the key directory's permanent holds: any agent with a verified bundle could keep any known agent's
// bindings for good by filing disputes naming it, as many as it liked. The service prunes idle bindings after two
// seconds (KEY_DIRECTORY_PRUNE_AFTER_SECONDS) and lets one filer hold two unsettled disputes.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import {
  OPERATOR,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
type Party = ReturnType<typeof partyOf>;

const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);

/**
 * The service of one describe block (started before its tests: idle bindings pruned after two seconds, `env` beside)
 * and what its tests do with it; `initiator` files unless another filer is named.
 */
function disputeHoldsService(dialect: StoreDialect, label: string, env: Record<string, string>) {
  let service: VerifierWithRecords;
  const initiator = partyOf(buildSignedBundle());
  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, label, {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      KEY_DIRECTORY_PRUNE_AFTER_SECONDS: '2',
      KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS: '1',
      ...env,
    });
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  /** A party of a fresh bundle, verified here now (its bindings are pruned once idle for two seconds). */
  const verified = async (party: Party = partyOf(buildSignedBundle())) => {
    const answer = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
    expect(answer.json['verified'], shown(answer)).toBe(true);
    expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
    return party;
  };
  const filing = (id: string, respondent: Party, filer: Party = initiator) =>
    signRecord(
      backend,
      PROFILES.proto,
      'dispute_record',
      withFields(example('dispute_record'), {
        dispute_id: id,
        initiator_agent_id: filer.agentId,
        respondent_agent_id: respondent.agentId,
      }),
      filer.agentKeys,
    );
  return {
    initiator,
    /** The running service (read once the block's tests run). */
    get service() {
      return service;
    },
    verified,
    filing,
    /** `filer` (verified again, in case its key was never used yet) files `id` against `respondent`. */
    file: async (id: string, respondent: Party, filer: Party = initiator) => {
      await verified(filer);
      return service.post('/v2/dispute/record', filing(id, respondent, filer));
    },
    settle: async (id: string) => {
      const resolution = withFields(example('arbitration_resolution'), { dispute_id: id });
      const settled = await service.post('/v2/dispute/arbitration', resolution, OPERATOR);
      expect(settled.status, shown(settled)).toBe(201);
    },
  };
}

describe.each(dialectsUnderTest())("a dispute's hold of its respondent's keys, on %s", (dialect) => {
  const holds = disputeHoldsService(dialect, 'v2-dispute-holds', { RECORDS_DISPUTE_HOLDS_PER_FILER: '2' });
  const { initiator, verified, filing, file, settle } = holds;

  it("P566: a settled dispute releases its respondent's keys to pruning", async () => {
    const respondent = await verified();
    const id = 'dispute:p566-released';
    const filed = await file(id, respondent);
    expect(filed.status, shown(filed)).toBe(201);
    // A party verified after the respondent and never used: once pruned, a run reached the respondent's rows too.
    const canary = await verified();
    expect(await holds.service.keyStatusOnce(canary.agentKeys.classical.kid, 404, 15_000)).toBe(404);
    // P537 still: while the dispute is open, its respondent's idle bindings are held.
    expect(await holds.service.keyStatus(respondent.agentKeys.classical.kid)).toBe(200);

    await settle(id);
    // Before P566: held for good, "timed out after 15000 ms waiting for /v2/keys/<kid> to answer 404".
    expect(await holds.service.keyStatusOnce(respondent.agentKeys.classical.kid, 404, 15_000)).toBe(404);
  });

  it('P566: one filer holds at most RECORDS_DISPUTE_HOLDS_PER_FILER unsettled disputes; a settled one frees its place', async () => {
    for (const n of [1, 2]) {
      const filed = await file(`dispute:p566-open-${n}`, await verified());
      expect(filed.status, shown(filed)).toBe(201);
    }
    const refused = await file('dispute:p566-third', await verified());
    // Before P566: 201, each filing one more permanent hold.
    expect(refused.status, shown(refused)).toBe(409);
    expect(refused.json, shown(refused)).toMatchObject({
      error: {
        code: 'CONFLICT',
        details: { reason: 'too_many_unsettled_disputes', initiator_agent_id: initiator.agentId, limit: 2 },
      },
    });
    expect((await fetch(`${holds.service.url}/v2/dispute/record/dispute:p566-third`)).status).toBe(404);

    await settle('dispute:p566-open-1');
    const next = await file('dispute:p566-next', await verified());
    expect(next.status, shown(next)).toBe(201);
    // The operator's filings are not counted (D22).
    const byOperator = await holds.service.post(
      '/v2/dispute/record',
      withFields(example('dispute_record'), {
        dispute_id: 'dispute:p566-operator',
        initiator_agent_id: initiator.agentId,
        respondent_agent_id: (await verified()).agentId,
      }),
      OPERATOR,
    );
    expect(byOperator.status, shown(byOperator)).toBe(201);
    for (const id of ['dispute:p566-open-2', 'dispute:p566-next', 'dispute:p566-operator']) await settle(id);
  });

  it('P605: concurrent filings of one filer store no more than RECORDS_DISPUTE_HOLDS_PER_FILER', async () => {
    const racer = await verified();
    const respondent = await verified();
    const ids = Array.from({ length: 12 }, (_, n) => `dispute:p605-race-${n}`);
    const answers = await Promise.all(
      ids.map((id) => holds.service.post('/v2/dispute/record', filing(id, respondent, racer))),
    );
    const stored = ids.filter((_, n) => answers[n]?.status === 201);
    // Before P605, on PostgreSQL: each filing counted the others' holds before any committed, "expected 12 to be 2".
    expect(stored.length, answers.map(shown).join('\n')).toBe(2);
    for (const answer of answers.filter((a) => a.status !== 201))
      expect(answer.json, shown(answer)).toMatchObject({
        error: { code: 'CONFLICT', details: { reason: 'too_many_unsettled_disputes', limit: 2 } },
      });
    for (const id of stored) await settle(id);
  });

  it('P607: a filing refused under another dispute id holds nothing', async () => {
    const id = 'dispute:p607-taken';
    const filed = await file(id, await verified());
    expect(filed.status, shown(filed)).toBe(201);
    const squatter = await verified();
    const bystander = await verified();
    const refused = await file(id, bystander, squatter);
    expect(refused.status, shown(refused)).toBe(409);
    const canary = await verified();
    expect(await holds.service.keyStatusOnce(canary.agentKeys.classical.kid, 404, 15_000)).toBe(404);
    // Before P607: the refused filing's hold stayed until the dispute it collided with settled, "timed out after
    // 15000 ms waiting for /v2/keys/<kid> to answer 404".
    expect(await holds.service.keyStatusOnce(bystander.agentKeys.classical.kid, 404, 15_000)).toBe(404);
    await settle(id);
  });

  it("P609: a retry of a stored filing is answered as one (200), whatever its filer's places", async () => {
    // Named by a filing of its own (held for good, P185), the respondent stays known here (P208) once settled.
    const known = await verified();
    const own = await file('dispute:p609-own', await verified(), known);
    expect(own.status, shown(own)).toBe(201);
    const settled = filing('dispute:p609-settled', known);
    await verified(initiator);
    const filed = await holds.service.post('/v2/dispute/record', settled);
    expect(filed.status, shown(filed)).toBe(201);
    await settle('dispute:p609-settled');
    for (const n of [1, 2]) {
      const open = await file(`dispute:p609-open-${n}`, await verified());
      expect(open.status, shown(open)).toBe(201);
    }
    const retried = await holds.service.post('/v2/dispute/record', settled);
    // Before P609: "expected 409 to be 200", too_many_unsettled_disputes.
    expect(retried.status, shown(retried)).toBe(200);
    for (const id of ['dispute:p609-own', 'dispute:p609-open-1', 'dispute:p609-open-2']) await settle(id);
  });
});

describe.each(dialectsUnderTest())("an unsettled dispute's hold, aged out, on %s", (dialect) => {
  const holds = disputeHoldsService(dialect, 'v2-dispute-hold-age', {
    RECORDS_DISPUTE_HOLDS_PER_FILER: '1',
    RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS: '8',
  });
  const { verified, file } = holds;

  it("P606: past RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS an unsettled dispute releases its respondent's keys and its filer's place", async () => {
    const filer = await verified();
    const respondent = await verified();
    const filed = await file('dispute:p606-stale', respondent, filer);
    expect(filed.status, shown(filed)).toBe(201);
    const canary = await verified();
    expect(await holds.service.keyStatusOnce(canary.agentKeys.classical.kid, 404, 15_000)).toBe(404);
    // Within the age the hold stands (P537, P566).
    expect(await holds.service.keyStatus(respondent.agentKeys.classical.kid)).toBe(200);
    // Before P606: held for as long as the dispute stays unsettled, "timed out after 20000 ms …".
    expect(await holds.service.keyStatusOnce(respondent.agentKeys.classical.kid, 404, 20_000)).toBe(404);
    // The dispute record itself stays.
    expect((await fetch(`${holds.service.url}/v2/dispute/record/dispute:p606-stale`)).status).toBe(200);
    // An aged-out hold holds nothing, so it takes no place of its filer's (before: 409 too_many_unsettled_disputes).
    const next = await file('dispute:p606-next', await verified(), filer);
    expect(next.status, shown(next)).toBe(201);
  });
});
