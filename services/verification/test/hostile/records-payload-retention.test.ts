// P567–P568 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// A content-id kind stores one copy per signed payload (P514), named by an index entry that retention (D17) evicts
// like any record: its tombstone then refused another copy with a 409 naming no id. And two writes racing over one
// payload's index entry, or over one evicted stripped copy's tombstone (P536), must leave one record and clear answers.
// The service keeps one record per kind (an operator lowering STORE_MAX_ENTRIES), so each next write evicts.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { partyOf, startWithParties, stripped, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
const MANIFEST = 'memory_transfer_manifest';
const MANIFEST_PATH = '/v2/succession/memory-transfer';
const DECLARATION = 'rights_declaration';
const DECLARATION_PATH = '/v2/rights/declaration';
/** Rounds of each race: each round is a fresh payload, so any one interleaving that goes wrong shows. */
const ROUNDS = 4;

describe.each(dialectsUnderTest())('payload copies and owner posts after eviction, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const owner = partyOf(buildSignedBundle());
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 600);
  const manifest = (nonce: string, keys = owner.agentKeys) =>
    signRecord(
      backend,
      PROFILES.proto,
      MANIFEST,
      withFields(example(MANIFEST), {
        predecessor_agent_id: owner.agentId,
        successor_agent_id: 'agent:p567-successor',
        session_nonce: nonce.padStart(64, '0'),
      }),
      keys,
    );
  const declaration = (id: string) =>
    signRecord(
      backend,
      PROFILES.proto,
      DECLARATION,
      withFields(example(DECLARATION), { declaration_id: id, agent_id: owner.agentId }),
      owner.agentKeys,
    );
  const status = async (path: string) => (await fetch(`${service.url}${path}`)).status;

  beforeAll(async () => {
    service = await startWithParties(
      dialect,
      'v2-payload-retention',
      { STORE_MAX_ENTRIES: '1', V2_RATE_LIMIT_PER_MINUTE: '0' },
      [owner],
    );
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P567: a copy of a payload whose index entry retention evicted is refused naming the id it is stored under', async () => {
    const first = manifest('a1');
    const stored = await service.post(MANIFEST_PATH, first);
    expect(stored.status, shown(stored)).toBe(201);
    // The next manifest evicts the first and its payload's index entry (one record of each kind kept).
    expect((await service.post(MANIFEST_PATH, manifest('a2'))).status).toBe(201);
    expect(await status(`${MANIFEST_PATH}/${String(stored.json['id'])}`)).toBe(404);

    const copy = await service.post(MANIFEST_PATH, stripped(MANIFEST, first));
    expect(copy.status, shown(copy)).toBe(409);
    // Before P567: details {reason, kind, payload_hash} and no id ("already stored under another id, since evicted").
    expect(copy.json, shown(copy)).toMatchObject({
      error: { code: 'CONFLICT', details: { reason: 'payload_already_stored', id: stored.json['id'] } },
    });
    expect(String((copy.json['error'] as Json)['message'])).toContain(String(stored.json['id']));
  });

  it('P568: two copies of one payload racing: one stored, the other 409 naming it, never both', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // One payload signed by the agent's key and by its principal's (bound to the agent too): two D14 ids.
      const copies = [manifest(`b${round}`), manifest(`b${round}`, owner.principalKeys)];
      const answers = await Promise.all(copies.map((copy) => service.post(MANIFEST_PATH, copy)));
      const all = JSON.stringify(answers.map(shown));
      expect(answers.map((a) => a.status).sort(), all).toEqual([201, 409]);
      const [won, lost] = answers[0]?.status === 201 ? answers : [answers[1], answers[0]];
      expect(lost?.json, all).toMatchObject({
        error: { details: { reason: 'payload_already_stored', id: won?.json['id'] } },
      });
    }
  });

  it("P568: the owner's hybrid record posted twice at once over its evicted stripped copy: one upgrade, then the same record", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const id = `rights:p568-own-${round}`;
      const own = declaration(id);
      expect((await service.post(DECLARATION_PATH, stripped(DECLARATION, own))).status).toBe(201);
      // The next declaration evicts the squat.
      expect((await service.post(DECLARATION_PATH, declaration(`rights:p568-next-${round}`))).status).toBe(
        201,
      );
      const answers = await Promise.all([0, 1].map(() => service.post(DECLARATION_PATH, own)));
      const all = JSON.stringify(answers.map(shown));
      expect(answers.map((a) => a.status).sort(), all).toEqual([200, 201]);
      const read = await fetch(`${service.url}${DECLARATION_PATH}/${id}`);
      const json = (await read.json()) as Json;
      expect(json['record'], all).toEqual(own);
      expect(json['signature'], all).toMatchObject({
        form: 'hybrid',
        upgraded_from: { form: 'classical_only' },
      });
    }
  });
});
