// V1 check `merkle_root`: an optional signature.merkle_root over the audit entries' sha256 leaves
// (PROTOCOL §2.3); `absent` when not stated. Error MERKLE_ROOT_MISMATCH.
import { prefixedHash } from '../../../hash/index.ts';
import { protocolMerkleRoot } from '../../../merkle/index.ts';
import { describe, prop } from '../../json.ts';
import type { Ledger } from '../../ledger.ts';
import type { ParsedV1 } from './parsed.ts';

export function checkMerkleRoot(ledger: Ledger, parsed: ParsedV1, leaves: readonly string[]): void {
  const statedRoot = prop(parsed.signature, 'merkle_root');
  if (statedRoot === undefined || statedRoot === null) {
    ledger.set('merkle_root', 'absent');
    return;
  }
  const root = protocolMerkleRoot('sha256', leaves);
  const expected = root === undefined ? undefined : prefixedHash('sha256', root);
  if (statedRoot !== expected) {
    ledger.fail(
      'merkle_root',
      'MERKLE_ROOT_MISMATCH',
      `MERKLE ROOT MISMATCH: expected ${String(expected)}, got ${describe(statedRoot)}`,
    );
  }
  ledger.settle('merkle_root');
}
