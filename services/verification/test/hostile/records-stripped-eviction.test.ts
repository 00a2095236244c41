// P536 over HTTP against the real verification service with the /v2 records mounted, on every store dialect. A
// PQ-stripped copy of an agent's record posted first is upgraded to the owner's hybrid form while it is stored (P446);
// once retention (D17, STORE_MAX_ENTRIES per kind) evicted it, its tombstone kept only the stripped copy's content hash,
// so the owner's own record was "another record" under a retired id (409) for good. The service runs with a retention
// of one, so that the next record of the kind evicts the squat (an operator lowering STORE_MAX_ENTRIES).
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { partyOf, startWithParties, stripped, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
const KIND = 'rights_declaration';

describe.each(dialectsUnderTest())('a PQ-stripped copy that retention evicted, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const owner = partyOf(buildSignedBundle());
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 600);
  const declaration = (id: string) =>
    signRecord(
      backend,
      PROFILES.proto,
      KIND,
      withFields(example(KIND), { declaration_id: id, agent_id: owner.agentId }),
      owner.agentKeys,
    );
  const get = async (path: string) => {
    const res = await fetch(`${service.url}${path}`);
    return { status: res.status, json: (await res.json()) as Json };
  };

  beforeAll(async () => {
    service = await startWithParties(dialect, 'v2-stripped-eviction', { STORE_MAX_ENTRIES: '1' }, [owner]);
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it("P536: the owner's hybrid record takes the id of its stripped copy once retention evicted it", async () => {
    for (const [n, pq] of [
      [1, null],
      [2, undefined],
    ] as const) {
      const own = declaration(`rights:p536-own-${n}`);
      const squat = await service.post('/v2/rights/declaration', stripped(KIND, own, pq));
      expect(squat.status, shown(squat)).toBe(201);
      // The next declaration evicts the squat (one record of the kind kept).
      const next = await service.post('/v2/rights/declaration', declaration(`rights:p536-next-${n}`));
      expect(next.status, shown(next)).toBe(201);
      expect((await get(`/v2/rights/declaration/rights:p536-own-${n}`)).status).toBe(404);

      const upgraded = await service.post('/v2/rights/declaration', own);
      // Before P536: 409 CONFLICT, the id retired by the stripped copy's tombstone for good.
      expect(upgraded.status, shown(upgraded)).toBe(201);
      expect(upgraded.json['record']).toEqual(own);
      expect(upgraded.json['signature'], shown(upgraded)).toMatchObject({
        status: 'verified',
        form: 'hybrid',
        upgraded_from: { form: 'classical_only', content_hash: expect.stringMatching(/^sha256:/) },
      });
      const read = await get(`/v2/rights/declaration/rights:p536-own-${n}`);
      expect(read.json['record'], shown(read)).toEqual(own);
      expect((await service.post('/v2/rights/declaration', own)).status).toBe(200);
    }
  });

  it("P536: another record under the evicted squat's id is still refused, and the stripped copy does not come back over it", async () => {
    const own = declaration('rights:p536-other');
    const squat = await service.post('/v2/rights/declaration', stripped(KIND, own));
    expect(squat.status, shown(squat)).toBe(201);
    expect((await service.post('/v2/rights/declaration', declaration('rights:p536-evictor'))).status).toBe(
      201,
    );
    // Another payload under the id, hybrid-signed by the same key: not the squat's upgrade.
    const other = signRecord(
      backend,
      PROFILES.proto,
      KIND,
      withFields(example(KIND), {
        declaration_id: 'rights:p536-other',
        agent_id: owner.agentId,
        jurisdiction: 'US',
      }),
      owner.agentKeys,
    );
    const refused = await service.post('/v2/rights/declaration', other);
    expect(refused.status, shown(refused)).toBe(409);
    // The stripped copy itself posted again is the evicted content: the id keeps its meaning.
    const again = await service.post('/v2/rights/declaration', stripped(KIND, own));
    expect([200, 201], shown(again)).toContain(again.status);
  });
});
