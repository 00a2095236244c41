// Repository of the verifier side of D20: per revocation list source, the highest list_number accepted.
// Issue 12 row k: kept in the store (not in memory) so a restarted verifier or a new replica refuses rollbacks.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

export interface RevocationWatermarksTable {
  source: string;
  jurisdiction: string;
  list_number: number | string;
  updated_at: string;
}

type WatermarkDatabase = Database & { revocation_list_watermarks: RevocationWatermarksTable };

export interface RevocationWatermarkRepository {
  /** The highest list_number recorded for `source`, or undefined when none was ever accepted. */
  highest(source: string): Promise<number | undefined>;
  /** Records `listNumber` unless a higher one is already stored; returns the stored (highest) number. */
  raise(source: string, jurisdiction: string, listNumber: number): Promise<number>;
}

const MAX_SOURCE_LENGTH = 2048;

function assertArguments(source: string, listNumber?: number): void {
  if (typeof source !== 'string' || source.length === 0 || source.length > MAX_SOURCE_LENGTH) {
    throw new TypeError(`source must be a non-empty string of at most ${MAX_SOURCE_LENGTH} characters`);
  }
  if (listNumber !== undefined && (!Number.isSafeInteger(listNumber) || listNumber < 0)) {
    throw new TypeError('listNumber must be a non-negative safe integer');
  }
}

export class KyselyRevocationWatermarkRepository implements RevocationWatermarkRepository {
  readonly #db: Kysely<WatermarkDatabase>;
  readonly #clock: () => Date;

  constructor(db: Kysely<Database>, options: { readonly clock: () => Date }) {
    // The 0006 table is declared beside this repository; same connection.
    this.#db = db as unknown as Kysely<WatermarkDatabase>;
    this.#clock = options.clock;
  }

  async highest(source: string): Promise<number | undefined> {
    assertArguments(source);
    const row = await this.#db
      .selectFrom('revocation_list_watermarks')
      .select('list_number')
      .where('source', '=', source)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.list_number);
  }

  async raise(source: string, jurisdiction: string, listNumber: number): Promise<number> {
    assertArguments(source, listNumber);
    const at = this.#clock().toISOString();
    // One statement on both dialects: concurrent replicas cannot lower the number (the WHERE keeps the max).
    await this.#db
      .insertInto('revocation_list_watermarks')
      .values({ source, jurisdiction, list_number: listNumber, updated_at: at })
      .onConflict((oc) =>
        oc
          .column('source')
          .doUpdateSet({
            list_number: sql`excluded.list_number`,
            jurisdiction: sql`excluded.jurisdiction`,
            updated_at: sql`excluded.updated_at`,
          })
          .where('revocation_list_watermarks.list_number', '<', sql<number>`excluded.list_number`),
      )
      .execute();
    return (await this.highest(source)) ?? listNumber;
  }
}
