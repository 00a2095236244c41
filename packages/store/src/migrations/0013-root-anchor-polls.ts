// Migration 0013: the log follows every pending root anchor, not only its newest (issue 18 leftovers, P63).
// Each row remembers how often its receipt was asked for and when to ask next, so the backoff survives
// restarts and replicas share it.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const rootAnchorPollsMigration: Migration = {
  name: '0013_root_anchor_polls',
  async up(db: Kysely<unknown>): Promise<void> {
    // Rows written before read as never polled and due at once.
    await db.schema
      .alterTable('tlog_root_anchors')
      .addColumn('polls', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('tlog_root_anchors').addColumn('next_poll_at', 'text').execute();
  },
};
