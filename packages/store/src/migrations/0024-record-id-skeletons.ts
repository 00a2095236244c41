// Migration 0024: what each /v2 record's id reads as, kept beside it and indexed (P570), so a write or a read asks the
// store which stored ids of its kind read the same instead of each process keeping its own map (P519's, which a
// PostgreSQL writer committing after a later `seq` could slip past). `known_as` is the id a record is known by when
// it is stored under another (P571: a testament version `<agent>:v<n>` is its agent's); `id_skeleton` is P455's
// skeleton of `known_as`, else of `id`. Both move to the tombstone on eviction (an evicted id keeps its meaning).
//
// The back-fill is one UPDATE per table, not a pass in JavaScript: every stored id matches the id pattern (printable
// ASCII, `assertId`), where the skeleton only replaces `I` and `1` by `l`, `0` by `O` and `m` by `rn` (`|` cannot
// occur), and none of those outputs is replaced again, so four nested `replace()` (the same in both dialects) give
// exactly `skeletonOf`. `record-id-skeletons.test.ts` holds the two equal over every character an id may hold: a
// change of the skeleton's ASCII part needs a migration that fills the column anew.
import { type Kysely, sql } from 'kysely';
import type { Migration } from './migration.ts';

/** Testament versions are stored under `<agent_id>:v<n>` (services/verification `testamentVersionId`). */
const TESTAMENT = 'digital_testament';

/** `skeletonOf` over an ASCII id expression, in SQL. */
function asciiSkeletonSql(column: ReturnType<typeof sql>) {
  return sql`replace(replace(replace(replace(${column}, 'I', 'l'), '1', 'l'), '0', 'O'), 'm', 'rn')`;
}

/** The agent id of a testament version's storage id: `:v` and the digits after it cut off. */
const testamentAgent = sql`substr(id, 1, length(rtrim(id, '0123456789')) - 2)`;

export const recordIdSkeletonsMigration: Migration = {
  name: '0024_record_id_skeletons',
  async up(db: Kysely<unknown>): Promise<void> {
    for (const table of ['v2_records', 'v2_record_tombstones']) {
      await db.schema.alterTable(table).addColumn('known_as', 'text').execute();
      await db.schema.alterTable(table).addColumn('id_skeleton', 'text').execute();
      await sql`UPDATE ${sql.table(table)} SET known_as = ${testamentAgent}
        WHERE kind = ${TESTAMENT} AND rtrim(id, '0123456789') LIKE '%:v'`.execute(db);
      await sql`UPDATE ${sql.table(table)} SET id_skeleton = ${asciiSkeletonSql(sql`COALESCE(known_as, id)`)}`.execute(
        db,
      );
      await db.schema
        .createIndex(`${table}_by_id_skeleton`)
        .on(table)
        .columns(['kind', 'id_skeleton'])
        .execute();
    }
  },
};
