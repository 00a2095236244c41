// Migration 0025 (P566, P567): a dispute's hold of its respondent's key bindings becomes releasable, and an evicted
// payload index entry names the id it stood for.
// - key_dispute_holds: P537 held a dispute's respondent in key_record_subjects, which is never released, so any filer
//   could keep any known agent's bindings from pruning for good. A respondent is now held per dispute (and per filer,
//   whose open holds are bounded) until the dispute is settled. Respondents P537 held before this migration stay in
//   key_record_subjects: a subject there cannot be told apart from one a record of its own names.
// - A `<kind>_payload` tombstone (P514's index of one stored copy per signed payload) kept only the content hash of
//   `{id}`; its writer now keeps `{id}` (P567). Older tombstones are back-filled by hashing every id the base kind ever
//   held (live or tombstoned) the way the store hashes a record, and matching.
import { hashCanonicalV2 } from '@proto/core';
import { type Kysely, sql } from 'kysely';
import type { Migration } from './migration.ts';

/** Rows read per query. */
const PAGE = 1_000;
const INDEX_SUFFIX = '_payload';

export const disputeHoldsMigration: Migration = {
  name: '0025_dispute_holds',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('key_dispute_holds')
      .addColumn('dispute_id', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('filer', 'text', (c) => c.notNull())
      .addColumn('since', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('key_dispute_holds_pk', ['dispute_id', 'subject'])
      .execute();
    // The prune looks holds up by subject; a filing counts its filer's.
    await db.schema
      .createIndex('key_dispute_holds_by_subject')
      .on('key_dispute_holds')
      .column('subject')
      .execute();
    await db.schema
      .createIndex('key_dispute_holds_by_filer')
      .on('key_dispute_holds')
      .column('filer')
      .execute();
    await backfillPayloadIds(db as unknown as Kysely<Backfill>);
  },
};

interface Backfill {
  v2_records: { seq: number | string | bigint; kind: string; id: string };
  v2_record_tombstones: { kind: string; id: string; content_hash: string; kept_json: string | null };
}

async function backfillPayloadIds(db: Kysely<Backfill>): Promise<void> {
  const kinds = await db
    .selectFrom('v2_record_tombstones')
    .select('kind')
    .distinct()
    .where('kind', 'like', `%${INDEX_SUFFIX}`)
    .where('kept_json', 'is', null)
    .execute();
  for (const { kind } of kinds) {
    const base = kind.slice(0, -INDEX_SUFFIX.length);
    const unnamed = new Set(
      (
        await db
          .selectFrom('v2_record_tombstones')
          .select('content_hash')
          .where('kind', '=', kind)
          .where('kept_json', 'is', null)
          .execute()
      ).map((row) => row.content_hash),
    );
    for (const table of ['v2_records', 'v2_record_tombstones'] as const) {
      let after = '';
      while (unnamed.size > 0) {
        const ids = await db
          .selectFrom(table)
          .select('id')
          .where('kind', '=', base)
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute();
        const last = ids.at(-1);
        if (last === undefined) break;
        after = last.id;
        for (const { id } of ids) {
          const hash = hashCanonicalV2('sha256', { id });
          if (!hash.ok || !unnamed.has(hash.value)) continue;
          unnamed.delete(hash.value);
          await sql`UPDATE v2_record_tombstones SET kept_json = ${JSON.stringify({ id })}
            WHERE kind = ${kind} AND content_hash = ${hash.value} AND kept_json IS NULL`.execute(db);
        }
      }
    }
  }
}
