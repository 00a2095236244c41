// P570–P573 (brief "ids2"): look-alike /v2 ids answered from the store, not from each process's memory. Two real
// service processes on one store (SQLite file, PostgreSQL schema), operator writes so only the ids are in question.
// - P570: P519 kept each process's own map of a kind's ids, caught up by the store's insertion order (`seq`). On
//   PostgreSQL a writer takes its `seq` at insert and commits later: a look-alike whose `seq` is below one already
//   caught up on was passed over for good. Now each row keeps its skeleton (migration 0024) and a write asks the store.
// - P571: a testament is known by its agent's id (`<agent>:v<n>` is only where a version is stored): a testament
//   filed for `agent:…-Ol` beside `agent:…-01`'s was stored with not a word.
// - P573: a GET of a record said nothing of the stored ids that read the same: only the write's answer did.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashCanonicalV2, skeletonOf } from '@proto/core';
import type { Store } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { spawnService } from '../../src/test-support.ts';
import { storeEnvOf } from './verifier-with-records.ts';

const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };

async function post(url: string, path: string, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...OPERATOR },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

async function get(url: string, path: string) {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, json: (await res.json()) as Json };
}

const dispute = (id: string) => withFields(example('dispute_record'), { dispute_id: id });
const testament = (agentId: string, version: number) =>
  withFields(example('digital_testament'), { agent_id: agentId, testament_version: version });
const alike = (kind: string, id: string, stored: string) =>
  `${kind} id "${id}" reads the same as the stored "${stored}": check which one is meant (look-alike id; stored, not a failure)`;

describe.each(dialectsUnderTest())(
  'P570–P573: look-alike ids from the store, two processes on %s',
  (dialect) => {
    let target: StoreTarget;
    let store: Store;
    let dataDir: string;
    const children: ChildProcess[] = [];
    let a: string;
    let b: string;

    beforeAll(async () => {
      target = await createStoreTarget(dialect, 'ids2-look-alikes');
      store = await target.open({ name: 'verification' }); // the service's SQLite file; PostgreSQL: its schema
      dataDir = await mkdtemp(join(tmpdir(), 'proto-ids2-'));
      const env = { PORT: '0', OPERATOR_TOKEN: TEST_OPERATOR_TOKEN, ...storeEnvOf(target, dataDir) };
      const services = [spawnService(env), spawnService(env)];
      children.push(...services.map((s) => s.child));
      [a, b] = (await Promise.all(services.map((s) => s.listening()))) as [string, string];
    }, 90_000);
    afterAll(async () => {
      for (const child of children) child.kill('SIGTERM');
      await store?.close();
      await target?.cleanup();
      if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    });

    it('a look-alike written through the other process is named by each, whichever read the kind first', async () => {
      expect((await post(a, '/v2/dispute/record', dispute('dispute-5m-01'))).status).toBe(201);
      const twin = await post(b, '/v2/dispute/record', dispute('dispute-5rn-Ol'));
      expect(twin.status, JSON.stringify(twin.json)).toBe(201);
      expect(twin.json['warnings']).toEqual([alike('dispute_record', 'dispute-5rn-Ol', 'dispute-5m-01')]);
      const third = await post(a, '/v2/dispute/record', dispute('dispute-5rn-0I'));
      expect(third.json['warnings']).toEqual([
        alike('dispute_record', 'dispute-5rn-0I', 'dispute-5m-01'),
        alike('dispute_record', 'dispute-5rn-0I', 'dispute-5rn-Ol'),
      ]);
    });

    // PostgreSQL only: SQLite has one writer at a time, so no `seq` is ever committed after a higher one.
    it.skipIf(dialect === 'sqlite')(
      'a look-alike whose write took its place in the store before another write but committed after it: named',
      async () => {
        expect((await post(a, '/v2/dispute/record', dispute('dispute-race-first'))).status).toBe(201);
        // Another replica's write between its insert and its commit: its row holds a `seq` nobody sees yet.
        let commit!: () => void;
        const committed = new Promise<void>((resolve) => {
          commit = resolve;
        });
        let inserted!: () => void;
        const held = new Promise<void>((resolve) => {
          inserted = resolve;
        });
        const record = dispute('dispute-r4ce-0I');
        const hash = hashCanonicalV2('sha256', record);
        if (!hash.ok) throw new Error('no canonical form');
        const writing = store.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('v2_records')
            .values({
              kind: 'dispute_record',
              id: 'dispute-r4ce-0I',
              record_json: JSON.stringify(record),
              content_hash: hash.value,
              stored_at: new Date().toISOString(),
              agent_id: null,
              kept_json: null,
              id_skeleton: skeletonOf('dispute-r4ce-0I'),
            })
            .execute();
          inserted();
          await committed;
        });
        await held;
        // A later write commits first: a process catching up by `seq` is now past the held row's place.
        expect((await post(a, '/v2/dispute/record', dispute('dispute-race-later'))).status).toBe(201);
        commit();
        await writing;
        const twin = await post(a, '/v2/dispute/record', dispute('dispute-r4ce-Ol'));
        expect(twin.status, JSON.stringify(twin.json)).toBe(201);
        expect(twin.json['warnings']).toEqual([
          alike('dispute_record', 'dispute-r4ce-Ol', 'dispute-r4ce-0I'),
        ]);
      },
    );

    it("P571: a testament filed for a look-alike of another agent's: named; the agent's own next version: not", async () => {
      expect((await post(a, '/v2/succession/testament', testament('agent:heir-keeper-01', 2))).status).toBe(
        201,
      );
      const twin = await post(b, '/v2/succession/testament', testament('agent:heir-keeper-Ol', 1));
      expect(twin.status, JSON.stringify(twin.json)).toBe(201);
      expect(twin.json['warnings']).toEqual([
        alike('digital_testament', 'agent:heir-keeper-Ol', 'agent:heir-keeper-01'),
      ]);
      const next = await post(a, '/v2/succession/testament', testament('agent:heir-keeper-01', 3));
      expect(next.status, JSON.stringify(next.json)).toBe(201);
      expect(next.json['warnings']).toEqual([
        alike('digital_testament', 'agent:heir-keeper-01', 'agent:heir-keeper-Ol'),
      ]);
    });

    it('P573: a GET of either of two look-alikes names the other; of an id none reads as: nothing', async () => {
      expect((await post(a, '/v2/dispute/record', dispute('dispute-get-1O'))).status).toBe(201);
      expect((await post(b, '/v2/dispute/record', dispute('dispute-get-l0'))).status).toBe(201);
      const later = await get(a, '/v2/dispute/record/dispute-get-l0');
      expect(later.status).toBe(200);
      expect(later.json['warnings']).toEqual([alike('dispute_record', 'dispute-get-l0', 'dispute-get-1O')]);
      const earlier = await get(b, '/v2/dispute/record/dispute-get-1O');
      expect(earlier.json['warnings']).toEqual([alike('dispute_record', 'dispute-get-1O', 'dispute-get-l0')]);
      const testaments = await get(b, '/v2/succession/testament/agent:heir-keeper-Ol');
      expect(testaments.json['warnings']).toEqual([
        alike('digital_testament', 'agent:heir-keeper-Ol', 'agent:heir-keeper-01'),
      ]);
      expect((await post(a, '/v2/dispute/record', dispute('dispute-get-zz'))).status).toBe(201);
      const plain = await get(b, '/v2/dispute/record/dispute-get-zz');
      expect(plain.status).toBe(200);
      expect(plain.json['warnings']).toBeUndefined();
    });
  },
);
