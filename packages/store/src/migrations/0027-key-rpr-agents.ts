// Migration 0027 (P600, P601): what the key directory keeps of each RPR it binds.
// - key_rpr_agents: the agent a verified bundle first bound under an RPR, by the RPR payload's hash (`manifest.rpr_hash`,
//   `sha256:` of its JCS form). An RPR names no agent but repeats its session's nonce, which the passport repeats too, so
//   a human commissioning a second agent issues a second RPR: one RPR hash under a second agent id is a copy, and binds
//   nothing (P600). The hash is the primary key, so two replicas binding two agents under one RPR at once are ordered by
//   it. No back-fill: the RPR hash was never stored; an agent's next verified bundle claims its RPR.
// - key_principals.expires_at: the placed RPR's own `expires_at` (null: none), so an expired RPR's human is no agent's
//   current principal (P601). Rows placed before this migration have none until their RPR is verified again.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const keyRprAgentsMigration: Migration = {
  name: '0027_key_rpr_agents',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('key_rpr_agents')
      .addColumn('rpr_hash', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('evidence', 'text', (c) => c.notNull())
      .addColumn('bound_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('key_principals').addColumn('expires_at', 'text').execute();
  },
};
