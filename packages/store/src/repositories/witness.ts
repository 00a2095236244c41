// Repository of a tlog witness (services/witness): per log origin, the tree it last cosigned.
// Issue 18 item 2, decision P49: every change is a compare-and-swap on (size, root), so of two requests
// that start from the same head only one can move it, across processes and restarts.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface WitnessHeadsTable {
  origin: string;
  tree_size: number | string;
  root_hash: string;
  checkpoint: string;
  updated_at: string;
}

type WitnessDatabase = Database & { witness_heads: WitnessHeadsTable };

/** The head a witness last cosigned for one log. */
export interface StoredWitnessHead {
  readonly origin: string;
  readonly size: number;
  /** Lower-case hex of the 32-byte root. */
  readonly rootHex: string;
  /** The checkpoint note as cosigned (the log's verified signatures and the witness's cosignature). */
  readonly checkpoint: string;
  readonly updatedAt: string;
}

export interface WitnessHeadUpdate {
  readonly size: number;
  readonly rootHex: string;
  readonly checkpoint: string;
}

export interface WitnessRepository {
  /** The head last cosigned for `origin`, or undefined when none was. */
  head(origin: string): Promise<StoredWitnessHead | undefined>;
  /**
   * Moves the head of `origin` from `expected` (undefined: no head yet) to `next`, only if the stored
   * head is still exactly `expected`. Returns false, changing nothing, when another writer moved it first.
   */
  advance(
    origin: string,
    expected: { readonly size: number; readonly rootHex: string } | undefined,
    next: WitnessHeadUpdate,
  ): Promise<boolean>;
}

const MAX_ORIGIN_LENGTH = 1024;
const HEX_ROOT = /^[0-9a-f]{64}$/;

function checkOrigin(origin: string): void {
  if (typeof origin !== 'string' || origin.length === 0 || origin.length > MAX_ORIGIN_LENGTH)
    throw new TypeError(`origin must be a non-empty string of at most ${MAX_ORIGIN_LENGTH} characters`);
}

function checkHead(head: { readonly size: number; readonly rootHex: string }): void {
  if (!Number.isSafeInteger(head.size) || head.size < 0)
    throw new TypeError('tree size must be a non-negative safe integer');
  if (!HEX_ROOT.test(head.rootHex)) throw new TypeError('root must be 64 lower-case hex digits');
}

export class KyselyWitnessRepository implements WitnessRepository {
  readonly #db: Kysely<WitnessDatabase>;
  readonly #clock: () => Date;

  constructor(db: Kysely<Database>, options: { readonly clock: () => Date }) {
    // The 0010 table is declared beside this repository; same connection.
    this.#db = db as unknown as Kysely<WitnessDatabase>;
    this.#clock = options.clock;
  }

  async head(origin: string): Promise<StoredWitnessHead | undefined> {
    checkOrigin(origin);
    const row = await this.#db
      .selectFrom('witness_heads')
      .selectAll()
      .where('origin', '=', origin)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      origin: row.origin,
      size: Number(row.tree_size),
      rootHex: row.root_hash,
      checkpoint: row.checkpoint,
      updatedAt: row.updated_at,
    };
  }

  async advance(
    origin: string,
    expected: { readonly size: number; readonly rootHex: string } | undefined,
    next: WitnessHeadUpdate,
  ): Promise<boolean> {
    checkOrigin(origin);
    checkHead(next);
    if (typeof next.checkpoint !== 'string' || next.checkpoint.length === 0)
      throw new TypeError('checkpoint must be the cosigned note');
    const at = this.#clock().toISOString();
    if (expected === undefined) {
      // First cosignature for this log: the primary key lets exactly one concurrent insert in.
      const inserted = await this.#db
        .insertInto('witness_heads')
        .values({
          origin,
          tree_size: next.size,
          root_hash: next.rootHex,
          checkpoint: next.checkpoint,
          updated_at: at,
        })
        .onConflict((oc) => oc.column('origin').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
    }
    checkHead(expected);
    // One statement: the WHERE is the compare, so no read-then-write window exists on either dialect.
    const updated = await this.#db
      .updateTable('witness_heads')
      .set({ tree_size: next.size, root_hash: next.rootHex, checkpoint: next.checkpoint, updated_at: at })
      .where('origin', '=', origin)
      .where('tree_size', '=', expected.size)
      .where('root_hash', '=', expected.rootHex)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }
}
