// V1 check `bundle_hash`: signature.bundle_hash is sha256 of the V1-canonical bundle (PROTOCOL §5.2).
// Error MANIFEST_HASH_MISMATCH.
import { hexDigest, prefixedHash } from '../../../hash/index.ts';
import { describe, prop } from '../../json.ts';
import type { Ledger } from '../../ledger.ts';
import type { ParsedV1 } from './parsed.ts';

/** Records `bundle_hash`; returns the stated hash when it is a string (the service's anchor subject). */
export function checkBundleHash(ledger: Ledger, parsed: ParsedV1): string | undefined {
  const bundleHash = prefixedHash('sha256', hexDigest('sha256', parsed.bundleBytes));
  const statedHash = prop(parsed.signature, 'bundle_hash');
  if (statedHash !== bundleHash) {
    ledger.fail(
      'bundle_hash',
      'MANIFEST_HASH_MISMATCH',
      `BUNDLE HASH MISMATCH: expected ${bundleHash}, got ${describe(statedHash)}`,
    );
  }
  ledger.settle('bundle_hash');
  return typeof statedHash === 'string' ? statedHash : undefined;
}
