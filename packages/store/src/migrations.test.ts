// Tests of the migration runner on every dialect: first run, re-runs, simultaneous starts, newer databases.
// Covers docs/architecture.md §4 (versioned, idempotent migrations; safe when two processes start at once).
import { hashCanonicalV2 } from '@proto/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputeHoldsOf } from './key-directory-testing.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { openStore } from './store.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget, steppingClock } from './testing.ts';

const ALL = MIGRATIONS.map((m) => m.name);

describe.each(dialectsUnderTest())('migrations on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'migrations');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('creates every table on an empty database and records each migration once', async () => {
    const store = await target.open({
      ...target.fresh('first'),
      clock: steppingClock('2025-05-01T00:00:00.000Z'),
    });
    const rows = await store.db.selectFrom('store_migrations').selectAll().orderBy('name').execute();
    expect(rows.map((r) => r.name)).toEqual(ALL);
    await store.ping();
    expect(await store.records.count('anything')).toBe(0);
    expect(await store.lifecycle.get('nobody')).toBeUndefined();
    await store.close();
  });

  it('runs twice without change: the second open applies nothing', async () => {
    const options = target.fresh('twice');
    const first = await target.open({ ...options, clock: steppingClock('2025-05-01T00:00:00.000Z') });
    const before = await first.db.selectFrom('store_migrations').selectAll().orderBy('name').execute();
    await first.records.put('kept', 'k-1', { kept: true });
    await first.close();

    const second = await target.open({ ...options, clock: steppingClock('2030-01-01T00:00:00.000Z') });
    expect(await second.db.selectFrom('store_migrations').selectAll().orderBy('name').execute()).toEqual(
      before,
    );
    expect((await second.records.get('kept', 'k-1'))?.record).toEqual({ kept: true });
  });

  it('survives several stores starting at once on an empty database', async () => {
    const options = target.fresh('together');
    const stores = await Promise.all(Array.from({ length: 4 }, () => target.open(options)));
    const rows = await stores[0]!.db.selectFrom('store_migrations').select('name').orderBy('name').execute();
    expect(rows.map((r) => r.name)).toEqual(ALL);
    await Promise.all(stores.map((s, i) => s.records.put('started', `s-${i}`, { i })));
    expect(await stores[3]!.records.count('started')).toBe(4);
  });

  it('refuses a database written by a newer release instead of guessing', async () => {
    const options = target.fresh('newer');
    const store = await target.open(options);
    await store.db
      .insertInto('store_migrations')
      .values({ name: '9999_from_the_future', applied_at: 'x' })
      .execute();
    await store.close();
    await expect(openStore(options)).rejects.toThrow(/9999_from_the_future/);
  });

  it("0022 on a database at 0021: drops 0020's index, adds the partial one, keeps an unnumbered retirement", async () => {
    const options = target.fresh('at0021');
    const store = await target.open(options);
    // Back to 0021's state: 0020's index present, 0022's absent and unrecorded.
    await sql`DROP INDEX key_bindings_unnumbered_retired`.execute(store.db);
    await sql`CREATE INDEX key_bindings_by_retired_at ON key_bindings (retired_at, kid, subject)`.execute(
      store.db,
    );
    await store.db
      .deleteFrom('store_migrations')
      .where('name', '=', '0022_key_bindings_unnumbered_retired')
      .execute();
    await sql`INSERT INTO key_bindings (kid, subject, alg, public_key_b64, role, evidence, bound_at, retired_at)
      VALUES ('kid-old', 'agent-old', 'ed25519', 'x', 'passport', 'e', '2025-01-01T00:00:00.000Z',
        '2025-02-01T00:00:00.000Z')`.execute(store.db);
    await store.close();
    const upgraded = await target.open(options);
    const indexes =
      dialect === 'postgres'
        ? sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
            WHERE schemaname = ${options.pgSchema ?? ''} AND tablename = 'key_bindings'`
        : sql<{
            name: string;
          }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'key_bindings'`;
    const names = (await indexes.execute(upgraded.db)).rows.map((r) => r.name);
    expect(names).toContain('key_bindings_unnumbered_retired');
    expect(names).not.toContain('key_bindings_by_retired_at');
    expect(await upgraded.keys.numberUnnumberedRetirements()).toBe(1);
  });

  it('0025 on a database at 0023: an evicted payload index entry from before it names the id it stood for (P567)', async () => {
    const options = target.fresh('at0023');
    const store = await target.open(options);
    // Back to 0023's state: no dispute holds, 0025 unrecorded.
    await sql`DROP TABLE key_dispute_holds`.execute(store.db);
    await store.db.deleteFrom('store_migrations').where('name', '=', '0025_dispute_holds').execute();
    // A copy stored under `sha256:live`, and one evicted under `sha256:gone`: their index entries evicted before 0025
    // kept nothing but the content hash of `{id}`; a third entry names an id no record of the kind ever held.
    await store.records.put('memory_transfer_manifest', 'sha256:live', { n: 1 });
    const hashOf = (id: string) => {
      const hash = hashCanonicalV2('sha256', { id });
      if (!hash.ok) throw new Error(hash.error.message);
      return hash.value;
    };
    for (const [kind, id, contentHash] of [
      ['memory_transfer_manifest', 'sha256:gone', 'sha256:whatever'],
      ['memory_transfer_manifest_payload', 'sha256:p1', hashOf('sha256:live')],
      ['memory_transfer_manifest_payload', 'sha256:p2', hashOf('sha256:gone')],
      ['memory_transfer_manifest_payload', 'sha256:p3', hashOf('sha256:unknown')],
    ] as const) {
      await sql`INSERT INTO v2_record_tombstones (kind, id, content_hash, stored_at, evicted_at)
        VALUES (${kind}, ${id}, ${contentHash}, '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z')`.execute(
        store.db,
      );
    }
    await store.close();
    const upgraded = await target.open(options);
    const kept = async (id: string) =>
      (await upgraded.records.tombstone('memory_transfer_manifest_payload', id))?.kept;
    expect(await kept('sha256:p1')).toEqual({ id: 'sha256:live' });
    expect(await kept('sha256:p2')).toEqual({ id: 'sha256:gone' });
    expect(await kept('sha256:p3')).toBeUndefined();
    expect(await disputeHoldsOf(upgraded, 'agent:nobody')).toBe(0);
  });

  it('rejects options it cannot honour', async () => {
    await expect(openStore({ ...target.options, maxEntriesPerKind: 0 })).rejects.toThrow(RangeError);
    await expect(openStore({})).rejects.toThrow(/databaseUrl|dataDir/);
    await expect(openStore({ databaseUrl: 'mysql://localhost/x' })).rejects.toThrow(/postgres/);
    await expect(
      openStore({ databaseUrl: 'postgres://localhost/x', pgSchema: 'Mixed_Case' }),
    ).rejects.toThrow(/pgSchema/);
    await expect(openStore({ databaseUrl: 'postgres://localhost/x', pgSchema: 'bad"name' })).rejects.toThrow(
      /pgSchema/,
    );
    await expect(openStore({ dataDir: '/tmp', name: '../escape' })).rejects.toThrow(/file name/);
  });

  it('creates exactly its tables, and on PostgreSQL only in the requested schema', async () => {
    const options = target.fresh('tables');
    const store = await target.open(options);
    const tables =
      dialect === 'postgres'
        ? sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = ${options.pgSchema ?? ''} ORDER BY table_name`
        : sql<{ name: string }>`SELECT name FROM sqlite_master
            WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`;
    expect((await tables.execute(store.db)).rows.map((r) => r.name)).toEqual([
      'anchor_batches',
      'anchor_chains',
      'anchor_items',
      'attestation_issuance',
      'emergency_tokens',
      'issuer_keys',
      'key_bindings',
      'key_dispute_holds',
      'key_passports',
      'key_principals',
      'key_record_subjects',
      'key_retirement_counter',
      'key_rpr_agents',
      'lifecycle_agents',
      'lifecycle_history',
      'revocation_entries',
      'revocation_list_watermarks',
      'revocation_lists',
      'revocation_state',
      'store_migrations',
      'tlog_checkpoints',
      'tlog_cosignatures',
      'tlog_head',
      'tlog_leaves',
      'tlog_meta',
      'tlog_nodes',
      'tlog_root_anchors',
      'v2_panel_signatures',
      'v2_record_kinds',
      'v2_record_signatures',
      'v2_record_tombstones',
      'v2_records',
      'witness_heads',
    ]);
  });
});
