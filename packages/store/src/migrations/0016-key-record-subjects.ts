// Migration 0016: the ids a stored /v2 record names, whose key bindings are never pruned (P185), and a proof time
// for the bindings from before 0015, which P174 could not tell apart from authors and so kept for ever.
import { recordSubjects } from '@proto/core';
import { type Kysely, sql } from 'kysely';
import type { Migration } from './migration.ts';

/** Records read per query, and subjects written per insert (far below either dialect's parameter limit). */
const PAGE = 1_000;

export const keyRecordSubjectsMigration: Migration = {
  name: '0016_key_record_subjects',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('key_record_subjects')
      .addColumn('subject', 'text', (c) => c.primaryKey())
      .addColumn('since', 'text', (c) => c.notNull())
      .execute();
    // Continuity (P45) and the prune's checks look bindings up by subject; the primary key leads with the kid.
    await db.schema.createIndex('key_bindings_by_subject').on('key_bindings').column('subject').execute();

    // Every subject of every stored record, as the write path names them from now on (records/routes.ts). Read
    // from the records themselves: the `agent_id` column holds only one of a kind's subject fields.
    const typed = db as unknown as Kysely<Backfill>;
    let after = 0;
    for (;;) {
      const page = await typed
        .selectFrom('v2_records')
        .select(['seq', 'kind', 'record_json', 'stored_at'])
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(PAGE)
        .execute();
      const last = page.at(-1);
      if (last === undefined) break;
      after = Number(last.seq);
      const found = new Map<string, string>();
      for (const row of page) {
        for (const subject of subjectsOf(row.kind, row.record_json)) {
          if (!found.has(subject)) found.set(subject, row.stored_at);
        }
      }
      await hold(
        typed,
        [...found].map(([subject, since]) => ({ subject, since })),
      );
    }
    // A lifecycle state outlives its records (D17 evicts records, never states). `WHERE true`: SQLite would read
    // the ON of ON CONFLICT as a join's.
    await sql`INSERT INTO key_record_subjects (subject, since) SELECT agent_id, created_at FROM lifecycle_agents
      WHERE true ON CONFLICT (subject) DO NOTHING`.execute(db);

    // Bindings 0015 marked authorised only because they predate it (authorised_at = bound_at, bound no later than
    // 0015 ran) count as proven now instead, so they are pruned after one age like any other, unless their
    // kid signed a stored write (its signature row outlives eviction) or their subject is held above. Retired
    // rows are left alone: pruning never deletes them anyway.
    await sql`UPDATE key_bindings SET authorised_at = NULL, seen_at = ${new Date().toISOString()}
      WHERE retired_at IS NULL
        AND authorised_at = bound_at
        AND bound_at <= (SELECT applied_at FROM store_migrations WHERE name = '0015_key_binding_use')
        AND NOT EXISTS (SELECT 1 FROM v2_record_signatures s WHERE s.kid = key_bindings.kid)
        AND NOT EXISTS (SELECT 1 FROM key_record_subjects h WHERE h.subject = key_bindings.subject)`.execute(
      db,
    );
  },
};

interface Backfill {
  v2_records: { seq: number | string | bigint; kind: string; record_json: string; stored_at: string };
  key_record_subjects: { subject: string; since: string };
}

function subjectsOf(kind: string, json: string): string[] {
  try {
    const record: unknown = JSON.parse(json);
    return typeof record === 'object' && record !== null && !Array.isArray(record)
      ? recordSubjects(kind, record as Record<string, unknown>)
      : [];
  } catch {
    return []; // stored as received and validated then; a record unreadable now names nobody it could protect
  }
}

async function hold(
  db: Kysely<Backfill>,
  rows: readonly { subject: string; since: string }[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += PAGE) {
    await db
      .insertInto('key_record_subjects')
      .values(rows.slice(i, i + PAGE))
      .onConflict((oc) => oc.column('subject').doNothing())
      .execute();
  }
}
