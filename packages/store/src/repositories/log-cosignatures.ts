// Repository of the witness cosignatures the transparency log gathered on its own checkpoints (migration 0014).
// Issue 18 item 2, the log side (decisions P56, P57): cosignatures survive restarts and are shared by replicas.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { checkCount } from './log-sql.ts';

export interface LogCosignaturesTable {
  tree_size: number | string;
  witness: string;
  line: string;
  stored_at: string;
}

type CosignatureDatabase = Database & { tlog_cosignatures: LogCosignaturesTable };

export interface LogCosignatureRecord {
  readonly size: number;
  /** `<key name>+<8 hex key ID>` of the witness key that signed. */
  readonly witness: string;
  /** The cosignature line as the witness answered it (`— <name> <base64>\n`), verified before storing. */
  readonly line: string;
  readonly storedAt: string;
}

export interface LogCosignatureRepository {
  /** Stores a verified line unless that witness already has one for that size; true when stored now. */
  save(size: number, witness: string, line: string): Promise<boolean>;
  /**
   * Puts a newly verified line in place of `leftOut`, a stored line of that witness for that size which publication
   * leaves out (P306); true when replaced now, false when that line is no longer the stored one (a replica's round).
   */
  replace(size: number, witness: string, leftOut: string, line: string): Promise<boolean>;
  /** The lines stored for one checkpoint size. */
  forSize(size: number): Promise<LogCosignatureRecord[]>;
  /** The largest size this witness cosigned, or undefined when it never did. */
  lastCosignedSize(witness: string): Promise<number | undefined>;
  /** Sizes, newest first, cosigned by at least `quorum` of `witnesses` (at most `limit`). */
  quorumSizes(witnesses: readonly string[], quorum: number, limit: number): Promise<number[]>;
}

export class KyselyLogCosignatureRepository implements LogCosignatureRepository {
  readonly #db: Kysely<CosignatureDatabase>;
  readonly #clock: () => Date;

  constructor(db: Kysely<Database>, options: { readonly clock: () => Date }) {
    // The 0014 table is declared beside this repository; same connection.
    this.#db = db as unknown as Kysely<CosignatureDatabase>;
    this.#clock = options.clock;
  }

  async save(size: number, witness: string, line: string): Promise<boolean> {
    checkCount(size, 'size');
    const inserted = await this.#db
      .insertInto('tlog_cosignatures')
      .values({ tree_size: size, witness, line, stored_at: this.#clock().toISOString() })
      .onConflict((oc) => oc.columns(['tree_size', 'witness']).doNothing())
      .returning('tree_size')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async replace(size: number, witness: string, leftOut: string, line: string): Promise<boolean> {
    checkCount(size, 'size');
    const updated = await this.#db
      .updateTable('tlog_cosignatures')
      .set({ line, stored_at: this.#clock().toISOString() })
      .where('tree_size', '=', size)
      .where('witness', '=', witness)
      .where('line', '=', leftOut)
      .returning('tree_size')
      .executeTakeFirst();
    return updated !== undefined;
  }

  async forSize(size: number): Promise<LogCosignatureRecord[]> {
    checkCount(size, 'size');
    const rows = await this.#db
      .selectFrom('tlog_cosignatures')
      .selectAll()
      .where('tree_size', '=', size)
      .orderBy('witness')
      .execute();
    return rows.map((row) => ({
      size: Number(row.tree_size),
      witness: row.witness,
      line: row.line,
      storedAt: row.stored_at,
    }));
  }

  async lastCosignedSize(witness: string): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom('tlog_cosignatures')
      .select((eb) => eb.fn.max('tree_size').as('size'))
      .where('witness', '=', witness)
      .executeTakeFirst();
    return row?.size === null || row?.size === undefined ? undefined : Number(row.size);
  }

  async quorumSizes(witnesses: readonly string[], quorum: number, limit: number): Promise<number[]> {
    if (witnesses.length === 0 || quorum > witnesses.length) return [];
    const rows = await this.#db
      .selectFrom('tlog_cosignatures')
      .select('tree_size')
      .where('witness', 'in', [...witnesses])
      .groupBy('tree_size')
      .having((eb) => eb(eb.fn.countAll(), '>=', quorum))
      .orderBy('tree_size', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => Number(row.tree_size));
  }
}
