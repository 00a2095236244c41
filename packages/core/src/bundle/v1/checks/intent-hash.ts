// V1 check `intent_hash`: every audit entry's intent_hash is the bare-hex sha256 of the V1-canonical
// intent (PROTOCOL §2.1, D3). Error INTENT_HASH_MISMATCH.
import { hexDigest } from '../../../hash/index.ts';
import { describe, prop } from '../../json.ts';
import type { EntryBreaks, ParsedV1 } from './parsed.ts';

/** The intent_hash breaks; the pipeline records them (interleaved with hash_chain's by entry). */
export function findIntentHashBreaks(parsed: ParsedV1): EntryBreaks {
  const intentHash = hexDigest('sha256', parsed.intentBytes);
  let first: EntryBreaks['first'];
  let count = 0;
  parsed.entries.forEach((entry, i) => {
    const got = prop(entry, 'intent_hash');
    if (got !== intentHash && count++ === 0) {
      first = { entry: i, message: `intent_hash (entry ${i}): expected ${intentHash}, got ${describe(got)}` };
    }
  });
  return first === undefined ? { count } : { first, count };
}

export function intentHashMoreMessage(count: number): string {
  return `${count - 1} more entries have a wrong intent_hash`;
}
