// Receipt checks against public data, pure: the bundle's place in the batch, then what an EVM node, an Esplora
// explorer or a log returned. DECISIONS D19 (recompute, check the path, read the chain) and D12 (check values).
import { toHex } from '../encoding/index.ts';
import { err, ok, type Result } from '../result.ts';
import { bundleHashDigest, secondaryHashDigest, verifyAnchorInclusion } from './batch.ts';
import { ANCHOR_CHECK_CODES, type AnchorCheck, anchorFail, type PreparedReceipt } from './check-outcome.ts';
import { parseAnchorReceipt } from './receipt.ts';

/**
 * Offline part of every receipt check: parse, compare the receipt's `bundle_hash` with the recomputed
 * one, and check the Merkle path to the batch root. Returns what the chain must show, or the failing check.
 */
export function prepareReceiptCheck(
  receipt: unknown,
  bundleHash: string,
  /**
   * The bundle's SHA3-256 hash when the verifier knows it (P62: computed from the bundle, never from the
   * receipt): a receipt that anchors a secondary hash must name this one, or it fails like a wrong bundle_hash.
   */
  secondaryHash?: string,
  /**
   * Whether a receipt without a secondary hash earns a warning (default: yes, the caller asked for one).
   * Verifiers that compute the secondary of every bundle pass false: most receipts anchor only bundle_hash.
   */
  warnWithoutSecondary = true,
): Result<PreparedReceipt, AnchorCheck> {
  const digest = bundleHashDigest(bundleHash);
  if (digest === undefined) {
    return err(anchorFail('bundle hash must be sha256:<64 lowercase hex>', ANCHOR_CHECK_CODES.malformed));
  }
  if (secondaryHash !== undefined && secondaryHashDigest(secondaryHash) === undefined) {
    return err(
      anchorFail('secondary hash must be sha3-256:<64 lowercase hex>', ANCHOR_CHECK_CODES.malformed),
    );
  }
  const parsed = parseAnchorReceipt(receipt);
  if (!parsed.ok) return err(anchorFail(parsed.error.message, ANCHOR_CHECK_CODES.malformed));
  const { kind, receipt: r, inclusion } = parsed.value;
  if (r.bundle_hash !== undefined && r.bundle_hash !== bundleHash) {
    return err(anchorFail(`receipt is for ${r.bundle_hash}, not for ${bundleHash}`, undefined, { kind }));
  }
  if (r.status === 'failed') return err(anchorFail('receipt reports a failed anchor', undefined, { kind }));
  const claimed = r.bundle_hash_secondary;
  if (secondaryHash !== undefined && claimed !== undefined && claimed !== secondaryHash) {
    // P62: the same failure (and code) as a receipt for another bundle_hash.
    return err(
      anchorFail(
        `receipt's bundle_hash_secondary is ${claimed}, not the bundle's ${secondaryHash}`,
        undefined,
        {
          kind,
        },
      ),
    );
  }
  const warnings: string[] = [];
  if (secondaryHash !== undefined && claimed === undefined && warnWithoutSecondary)
    warnings.push('the receipt anchors only the SHA-256 bundle hash, not its SHA3-256 hash');
  if (inclusion !== undefined) {
    if (
      !verifyAnchorInclusion(
        bundleHash,
        inclusion.leafIndex,
        inclusion.batchSize,
        inclusion.path,
        inclusion.root,
      )
    ) {
      return err(
        anchorFail('the Merkle path does not lead from the bundle hash to batch_root', undefined, { kind }),
      );
    }
    const second = inclusion.secondary;
    if (
      second !== undefined &&
      !verifyAnchorInclusion(second.hash, second.leafIndex, inclusion.batchSize, second.path, inclusion.root)
    ) {
      return err(
        anchorFail('the Merkle path does not lead from bundle_hash_secondary to batch_root', undefined, {
          kind,
        }),
      );
    }
    if (second === undefined && claimed !== undefined)
      warnings.push('bundle_hash_secondary has no place in the batch yet: only the SHA-256 hash is checked');
    return ok({ parsed: parsed.value, committed: inclusion.root, warnings });
  }
  if (claimed !== undefined)
    warnings.push('bundle_hash_secondary is not anchored by this receipt: only the SHA-256 hash is checked');
  if (kind === 'log') {
    warnings.push('log receipt carries no root: inclusion is checked online only');
    return ok({ parsed: parsed.value, committed: '', warnings });
  }
  // SPEC.md: without a batch the chain carries the 32-byte digest itself.
  return ok({ parsed: parsed.value, committed: toHex(digest), warnings });
}
