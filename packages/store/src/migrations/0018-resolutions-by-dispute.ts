// Migration 0018: arbitration resolutions stored before P240 (under a content id) re-keyed by their `dispute_id`
// (P266), so a dispute's one resolution is found by the dispute whatever release stored it. When an old store holds
// several resolutions of one dispute, the first stored (lowest `seq`) becomes the dispute's resolution; the later
// ones stay under their content ids, readable, but no longer the dispute's. A dispute id already holding a
// resolution (or its tombstone) keeps it.
import { type Kysely, sql } from 'kysely';
import type { Migration } from './migration.ts';

const KIND = 'arbitration_resolution';

interface OldRow {
  readonly seq: number | string;
  readonly id: string;
  readonly record_json: string;
}

function disputeIdOf(recordJson: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(recordJson);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const id = (parsed as Record<string, unknown>).dispute_id;
    return typeof id === 'string' && id.length > 0 && !id.startsWith('sha256:') ? id : undefined;
  } catch {
    return undefined;
  }
}

export const resolutionsByDisputeMigration: Migration = {
  name: '0018_resolutions_by_dispute',
  async up(db: Kysely<unknown>): Promise<void> {
    const old = await sql<OldRow>`
      SELECT seq, id, record_json FROM v2_records
      WHERE kind = ${KIND} AND id LIKE 'sha256:%' ORDER BY seq`.execute(db);
    const taken = new Set<string>();
    for (const row of old.rows) {
      const disputeId = disputeIdOf(row.record_json);
      if (disputeId === undefined || taken.has(disputeId)) continue;
      taken.add(disputeId);
      const held = await sql<{ n: number | string }>`
        SELECT (SELECT COUNT(*) FROM v2_records WHERE kind = ${KIND} AND id = ${disputeId})
             + (SELECT COUNT(*) FROM v2_record_tombstones WHERE kind = ${KIND} AND id = ${disputeId}) AS n`.execute(
        db,
      );
      if (Number(held.rows[0]?.n ?? 0) > 0) continue;
      await sql`UPDATE v2_records SET id = ${disputeId} WHERE kind = ${KIND} AND id = ${row.id}`.execute(db);
    }
  },
};
