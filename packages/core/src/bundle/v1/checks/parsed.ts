// The V1 bundle as the schema step leaves it for the other checks: its parts and their V1-canonical bytes.
// PROTOCOL §5.1 (V1 canonical form); issue 13 item 3 (one check, one file).
import type { JsonRecord } from '../../json.ts';

export interface ParsedV1 {
  readonly bundle: JsonRecord;
  readonly signature: JsonRecord;
  readonly entries: readonly unknown[];
  /** V1-canonical bytes of `bundle`: what the signature and bundle_hash cover. */
  readonly bundleBytes: Uint8Array;
  readonly entryBytes: readonly Uint8Array[];
  readonly intentBytes: Uint8Array;
  readonly rprBytes: Uint8Array;
}

/** A per-entry check's first break (reported with its entry) and how many entries broke in all. */
export interface EntryBreaks {
  readonly first?: { readonly entry: number; readonly message: string };
  readonly count: number;
}
