// Repository of the key directory: which subject (agent or human id) each kid was bound to by a verified bundle.
// Implements issue 15 item 1: insert-if-new (idempotent, safe across replicas), lookup by kid, expiry honoured.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** Kysely table type of migration 0006 (kept here so the key directory storage is one file). */
export interface KeyDirectoryTables {
  key_bindings: {
    kid: string;
    subject: string;
    alg: string;
    public_key_b64: string;
    /** `passport` (the agent's own key) or `principal` (an RPR binding key). */
    role: string;
    /** The verified bundle's hash that proved the binding. */
    evidence: string;
    expires_at: string | null;
    bound_at: string;
  };
}

type KeyDirectoryDatabase = Database & KeyDirectoryTables;

export interface KeyBindingRow {
  readonly kid: string;
  readonly subject: string;
  readonly alg: string;
  readonly publicKeyB64: string;
  readonly role: 'passport' | 'principal';
  readonly evidence: string;
  readonly expiresAt: string | null;
  readonly boundAt: string;
}

export interface KeyDirectoryRepository {
  /** Stores the bindings not known yet (the first evidence of a (kid, subject) pair is kept); returns how many were new. */
  bind(bindings: readonly Omit<KeyBindingRow, 'boundAt'>[]): Promise<number>;
  /** Every subject a kid is bound to, expired bindings left out. */
  lookup(kid: string): Promise<KeyBindingRow[]>;
}

/**
 * Compared as instants, not strings: a passport may write `2026-01-01T05:00:00+05:00` or omit the
 * milliseconds. An unreadable expiry counts as expired (the key cannot be shown to be current).
 */
function notExpired(expiresAt: string, now: number): boolean {
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) && at > now;
}

export class KyselyKeyDirectoryRepository implements KeyDirectoryRepository {
  readonly #db: Kysely<KeyDirectoryDatabase>;
  readonly #clock: () => Date;

  constructor(db: Kysely<Database>, options: { readonly clock: () => Date }) {
    this.#db = db as unknown as Kysely<KeyDirectoryDatabase>;
    this.#clock = options.clock;
  }

  async bind(bindings: readonly Omit<KeyBindingRow, 'boundAt'>[]): Promise<number> {
    if (bindings.length === 0) return 0;
    const boundAt = this.#clock().toISOString();
    const result = await this.#db
      .insertInto('key_bindings')
      .values(
        bindings.map((b) => ({
          kid: b.kid,
          subject: b.subject,
          alg: b.alg,
          public_key_b64: b.publicKeyB64,
          role: b.role,
          evidence: b.evidence,
          expires_at: b.expiresAt,
          bound_at: boundAt,
        })),
      )
      .onConflict((oc) => oc.columns(['kid', 'subject']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n);
  }

  async lookup(kid: string): Promise<KeyBindingRow[]> {
    const now = this.#clock().getTime();
    const rows = await this.#db.selectFrom('key_bindings').selectAll().where('kid', '=', kid).execute();
    return rows
      .filter((r) => r.expires_at === null || notExpired(r.expires_at, now))
      .map((r) => ({
        kid: r.kid,
        subject: r.subject,
        alg: r.alg,
        publicKeyB64: r.public_key_b64,
        role: r.role === 'principal' ? 'principal' : 'passport',
        evidence: r.evidence,
        expiresAt: r.expires_at,
        boundAt: r.bound_at,
      }));
  }
}
