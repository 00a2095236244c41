// P570, P571: each /v2 record keeps what its id reads as (`id_skeleton`, migration 0024), and `readingAlike` answers
// from it: live and evicted ids of one kind, each once, oldest first; a record known by another id (`knownAs`, a
// testament version by its agent's) compared and named by that one. Migration 0024's back-fill, done in SQL, gives
// exactly `skeletonOf` over every character an id may hold.
import { skeletonOf } from '@proto/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

/** Every character the id pattern allows (`^[\w:.-]{1,256}$`). */
const ID_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:.-';

describe.each(dialectsUnderTest())('record id skeletons on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'record_id_skeletons');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('names the other live and evicted ids of the kind that read the same, oldest first, each once', async () => {
    const store = await target.open({ ...target.fresh('alike'), maxEntriesPerKind: 3 });
    await store.records.put('dispute_record', 'dispute-1001', { n: 1 });
    await store.records.put('dispute_record', 'dispute-l00l', { n: 2 });
    await store.records.put('dispute_record', 'dispute-plain', { n: 3 });
    await store.records.put('delegation_mandate', 'dispute-I00I', { n: 4 }); // another kind
    expect(await store.records.readingAlike('dispute_record', 'dispute-I0OI', 5)).toEqual([
      'dispute-1001',
      'dispute-l00l',
    ]);
    expect(await store.records.readingAlike('dispute_record', 'dispute-1001', 5)).toEqual(['dispute-l00l']);
    // Two more writes evict the first two: their ids keep their meaning, so they are still named.
    await store.records.put('dispute_record', 'dispute-x1', { n: 5 });
    await store.records.put('dispute_record', 'dispute-1OOI', { n: 6 });
    expect(await store.records.get('dispute_record', 'dispute-1001')).toBeUndefined();
    expect(await store.records.readingAlike('dispute_record', 'dispute-I0OI', 5)).toEqual([
      'dispute-1001',
      'dispute-l00l',
      'dispute-1OOI',
    ]);
    expect(await store.records.readingAlike('dispute_record', 'dispute-I0OI', 1)).toEqual(['dispute-1001']);
    expect(await store.records.readingAlike('dispute_record', 'dispute-plain', 5)).toEqual([]);
    await store.close();
  });

  it('compares a record known by another id by that one: its own versions are not named', async () => {
    const store = await target.open(target.fresh('known_as'));
    const testament = (agent: string, version: number) =>
      store.records.put('digital_testament', `${agent}:v${version}`, { agent, version }, { knownAs: agent });
    await testament('agent:owner-01', 1);
    await testament('agent:owner-01', 2);
    await testament('agent:owner-Ol', 7);
    expect(await store.records.readingAlike('digital_testament', 'agent:owner-01', 5)).toEqual([
      'agent:owner-Ol',
    ]);
    expect(await store.records.readingAlike('digital_testament', 'agent:owner-Ol', 5)).toEqual([
      'agent:owner-01',
    ]);
    await store.close();
  });

  it('0024 on a database at 0023: fills both columns of live rows and tombstones as skeletonOf would', async () => {
    const options = { ...target.fresh('at0023'), maxEntriesPerKind: 2 };
    const store = await target.open(options);
    const everyCharacter = ID_CHARACTERS.match(/.{1,20}/g) as string[];
    for (const [i, id] of everyCharacter.entries()) await store.records.put('sample', id, { i });
    await store.records.put('digital_testament', 'agent:old-1m:v1', { v: 1 }, { agentId: 'agent:old-1m' });
    await store.records.put('digital_testament', 'agent:old-1m:v12', { v: 12 }, { agentId: 'agent:old-1m' });
    await store.records.put('digital_testament', 'agent:old-1m:v13', { v: 13 }, { agentId: 'agent:old-1m' });
    // Back to 0023's state: neither column nor index, the migration unrecorded.
    for (const table of ['v2_records', 'v2_record_tombstones']) {
      await sql`DROP INDEX ${sql.id(`${table}_by_id_skeleton`)}`.execute(store.db);
      await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN id_skeleton`.execute(store.db);
      await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN known_as`.execute(store.db);
    }
    await store.db.deleteFrom('store_migrations').where('name', '=', '0024_record_id_skeletons').execute();
    await store.close();

    const upgraded = await target.open(options);
    const rows = [
      ...(await upgraded.db.selectFrom('v2_records').select(['id', 'known_as', 'id_skeleton']).execute()),
      ...(await upgraded.db
        .selectFrom('v2_record_tombstones')
        .select(['id', 'known_as', 'id_skeleton'])
        .execute()),
    ];
    expect(rows).toHaveLength(everyCharacter.length + 3);
    for (const row of rows) {
      const knownAs = row.id.startsWith('agent:old-1m:') ? 'agent:old-1m' : null;
      expect(row).toEqual({ id: row.id, known_as: knownAs, id_skeleton: skeletonOf(knownAs ?? row.id) });
    }
    expect(await upgraded.records.readingAlike('digital_testament', 'agent:old-lrn', 5)).toEqual([
      'agent:old-1m',
    ]);
    await upgraded.close();
  });
});
