// Migration 0003: the transparency log: leaves, perfect-subtree nodes, the locked tree head, checkpoints, anchors.
// Implements D18 (durable RFC 9162 log; proofs read O(log n) stored nodes; one root per signed size).
import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Migration, StoreDialect } from './migration.ts';

export const transparencyLogMigration: Migration = {
  name: '0003_transparency_log',
  async up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
    const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
    // SQLite: an INTEGER PRIMARY KEY is the rowid itself; PostgreSQL: 64-bit indices.
    const counter = dialect === 'postgres' ? 'bigint' : 'integer';

    // One row (id = 1). Every append locks it (FOR UPDATE on PostgreSQL; the write lock on SQLite),
    // so exactly one writer assigns indices and the size and root change together.
    await db.schema
      .createTable('tlog_head')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('tree_size', counter, (c) => c.notNull())
      .addColumn('root', bytes, (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addCheckConstraint('tlog_head_single_row', sql`id = 1`)
      .execute();
    const emptyRoot = createHash('sha256').digest();
    await (
      db as Kysely<{ tlog_head: { id: number; tree_size: number; root: Uint8Array; updated_at: string } }>
    )
      .insertInto('tlog_head')
      .values({ id: 1, tree_size: 0, root: emptyRoot, updated_at: new Date().toISOString() })
      .execute();

    // The leaf input (the 32 raw bytes of a bundle_hash, D18) once per log: the unique key dedupes.
    await db.schema
      .createTable('tlog_leaves')
      .addColumn('leaf_index', counter, (c) => c.primaryKey())
      .addColumn('leaf_data', bytes, (c) => c.notNull().unique())
      .addColumn('sequenced_at', 'text', (c) => c.notNull())
      .execute();

    // Perfect subtrees: (level, index) holds the hash of leaves [index·2^level, (index+1)·2^level);
    // level 0 is the leaf hash. Written once, never changed.
    await db.schema
      .createTable('tlog_nodes')
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('node_index', counter, (c) => c.notNull())
      .addColumn('hash', bytes, (c) => c.notNull())
      .addPrimaryKeyConstraint('tlog_nodes_pkey', ['level', 'node_index'])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`WITHOUT ROWID`) : t))
      .execute();

    // Signed checkpoints: the primary key makes one signed root per size.
    await db.schema
      .createTable('tlog_checkpoints')
      .addColumn('tree_size', counter, (c) => c.primaryKey())
      .addColumn('root', bytes, (c) => c.notNull())
      .addColumn('note', 'text', (c) => c.notNull())
      .addColumn('signed_at', 'text', (c) => c.notNull())
      .execute();

    // Settled facts of the log (its origin, its verifier keys), checked by every instance at start.
    await db.schema
      .createTable('tlog_meta')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();

    // Anchoring of signed roots through the anchor service: one claim per size, whoever wins it posts.
    await db.schema
      .createTable('tlog_root_anchors')
      .addColumn('tree_size', counter, (c) => c.primaryKey())
      .addColumn('root', bytes, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('requested_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('chain', 'text')
      .addColumn('tx_id', 'text')
      .addColumn('block_height', counter)
      .addColumn('receipt_json', 'text')
      .addColumn('error', 'text')
      .execute();
  },
};
