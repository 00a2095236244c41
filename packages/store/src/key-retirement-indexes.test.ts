// P522: migration 0020's index on key_bindings (retired_at, kid, subject) served P410's paging by time; since P472
// (migration 0021) the filter of retired kids pages by retirement number, and no query reads retirements by time.
// The one query left that names retired_at for a scan is the rolling upgrade's "retirements without a number" look,
// run at every refresh of the filter: PostgreSQL's planner did not use 0020's index for it (it takes the two
// conditions as independent and expects one matching row in every ten) and read the whole table each time, to find
// nothing once every retirement is numbered. Migration 0022 drops 0020's index and adds a partial index holding only
// unnumbered retirements (empty once numbered), which both dialects use for that look. EXPLAIN on a real store.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from './store.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

/** numberUnnumberedRetirements' look, as the repository writes it (its batch reads the same with LIMIT 10000). */
const unnumbered = (limit: number) => sql`SELECT kid, subject FROM key_bindings
  WHERE retired_seq IS NULL AND retired_at IS NOT NULL ORDER BY kid, subject LIMIT ${sql.lit(limit)}`;

describe.each(dialectsUnderTest())('key retirement indexes on %s', (dialect) => {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-retire-index');
    store = await target.open();
    // 40 000 bindings of 4 000 agents, one in ten retired and numbered: a directory after some rotations.
    const rows = sql`SELECT 'kid-' || g AS kid, 'agent-' || (g % 4000) AS subject, g FROM ${
      dialect === 'postgres'
        ? sql`generate_series(1, 40000) AS g`
        : sql`(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 40000) SELECT g FROM s)`
    }`;
    await sql`INSERT INTO key_bindings (kid, subject, alg, public_key_b64, role, evidence, bound_at, retired_at, retired_seq)
      SELECT kid, subject, 'ed25519', 'x', 'passport', 'e', '2025-01-01T00:00:00.000Z',
        CASE WHEN g % 10 = 0 THEN '2025-02-01T00:00:00.000Z' END, CASE WHEN g % 10 = 0 THEN g END
      FROM (${rows}) AS r`.execute(store.db);
    await sql`ANALYZE key_bindings`.execute(store.db);
  }, 120_000);
  afterAll(async () => {
    await target.cleanup();
  });

  async function plan(query: ReturnType<typeof sql>): Promise<string> {
    const explained = dialect === 'postgres' ? sql`EXPLAIN ${query}` : sql`EXPLAIN QUERY PLAN ${query}`;
    const result = await explained.execute(store.db);
    return (result.rows as Record<string, unknown>[])
      .map((row) => String(row['QUERY PLAN'] ?? row['detail']))
      .join('\n');
  }

  it("0020's index is gone; key_bindings has the indexes its queries use", async () => {
    const indexes =
      dialect === 'postgres'
        ? sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
            WHERE schemaname = current_schema() AND tablename = 'key_bindings' ORDER BY indexname`
        : sql<{ name: string }>`SELECT name FROM sqlite_master
            WHERE type = 'index' AND tbl_name = 'key_bindings' AND name NOT LIKE 'sqlite_%' ORDER BY name`;
    const names = (await indexes.execute(store.db)).rows.map((r) => r.name);
    expect(names).not.toContain('key_bindings_by_retired_at');
    expect(names).toContain('key_bindings_unnumbered_retired');
  });

  it.each([1, 10_000])(
    'the look for unnumbered retirements (LIMIT %i) reads an index, not the table',
    async (limit) => {
      const text = await plan(unnumbered(limit));
      expect(text).not.toMatch(/Seq Scan|^SCAN key_bindings$/m);
      // SQLite's planner takes the number index's NULL entries (as it did with 0020's index); PostgreSQL the partial one.
      expect(text).toMatch(
        dialect === 'postgres' ? /key_bindings_unnumbered_retired/ : /key_bindings_by_retired_seq/,
      );
    },
  );

  it('paging by retirement number and the look-ups by kid still read their indexes', async () => {
    expect(
      await plan(sql`SELECT retired_seq, kid, subject FROM key_bindings WHERE retired_seq IS NOT NULL
        AND (retired_seq, kid, subject) > (5, 'a', 'b') ORDER BY retired_seq, kid, subject LIMIT 1000`),
    ).toMatch(/key_bindings_by_retired_seq/);
    expect(
      await plan(sql`SELECT kid, subject FROM key_bindings WHERE kid IN ('kid-10', 'kid-20')
        AND subject IN ('agent-10') AND retired_at IS NOT NULL ORDER BY kid, subject LIMIT 100`),
    ).toMatch(/key_bindings_pkey|sqlite_autoindex_key_bindings/);
  });

  it('the store still numbers a retirement written without a number (rolling upgrade)', async () => {
    await sql`UPDATE key_bindings SET retired_seq = NULL WHERE kid = 'kid-30'`.execute(store.db);
    expect(await store.keys.numberUnnumberedRetirements()).toBe(1);
    expect(await store.keys.numberUnnumberedRetirements()).toBe(0);
  });
});
