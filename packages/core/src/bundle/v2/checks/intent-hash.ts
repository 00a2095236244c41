// V2 check `intent_hash`: every entry's intent_hash (and intent_hash_secondary whenever present) is the
// hash of the intent artifact, computed, never read. D7, D3. Error INTENT_HASH_MISMATCH.
import { hexDigest, prefixedHash } from '../../../hash/index.ts';
import { describe, prop } from '../../json.ts';
import type { V2Context } from '../context.ts';
import { FirstBreak } from './first-break.ts';

export function checkIntentHash(ctx: V2Context): void {
  const { ledger } = ctx;
  const intent = ctx.artifacts.intent;
  const intentHash = intent.hash;
  let intentHashSecondary: string | undefined;
  const wrong = new FirstBreak();
  const wrongSecondary = new FirstBreak();
  ctx.entries.forEach((entry, i) => {
    const got = prop(entry.value, 'intent_hash');
    if (got !== intentHash)
      wrong.note(`intent_hash (entry ${i}): expected ${intentHash}, got ${describe(got)}`);
    const gotSecondary = prop(entry.value, 'intent_hash_secondary');
    if (gotSecondary !== undefined) {
      intentHashSecondary ??= prefixedHash('sha3-256', hexDigest('sha3-256', intent.bytes));
      if (gotSecondary !== intentHashSecondary) {
        wrongSecondary.note(
          `intent_hash_secondary (entry ${i}): expected ${intentHashSecondary}, got ${describe(gotSecondary)}`,
        );
      }
    }
  });
  for (const b of [wrong, wrongSecondary]) {
    const m = b.message();
    if (m !== undefined) ledger.fail('intent_hash', 'INTENT_HASH_MISMATCH', m);
  }
  ledger.settle('intent_hash');
}
