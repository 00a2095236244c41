// Transparency-log receipt check against the log's inclusion proof answer. DECISIONS D18, D19.
import { fromHex, toHex } from '../encoding/index.ts';
import { rfc9162LeafHash, verifyRfc9162Inclusion } from '../merkle/index.ts';
import { bundleHashDigest } from './batch.ts';
import {
  type AnchorCheck,
  anchorFail,
  anchorPass,
  notYetSent,
  type PreparedReceipt,
  sourceMalformed,
} from './check-outcome.ts';
import type { LogAnchorReceipt } from './receipt.ts';

/**
 * Checks a log receipt against the log's `GET /proof/:log_index?tree_size=N` answer (D18:
 * `{log_index, tree_size, leaf_hash, proof[], root}`): the leaf is the bundle's, the proof leads to the
 * root, and that root is the receipt's `batch_root` at its tree size.
 */
export function checkLogProofData(
  prepared: PreparedReceipt,
  bundleHash: string,
  answer: unknown,
): AnchorCheck {
  const r = prepared.parsed.receipt as LogAnchorReceipt;
  const kind = 'log' as const;
  const logIndex = r.log_index ?? r.leaf_index;
  if (logIndex === undefined) return notYetSent(prepared);
  const a = (answer ?? {}) as Record<string, unknown>;
  const proof = a['proof'];
  const size = a['tree_size'];
  const root = a['root'];
  const leafHash = a['leaf_hash'];
  const answeredIndex = a['log_index'];
  // Not an answer, or about another entry than asked: the log at fault, not the receipt (P161).
  if (
    !Array.isArray(proof) ||
    typeof size !== 'number' ||
    !Number.isSafeInteger(size) ||
    size < 1 ||
    typeof root !== 'string' ||
    !proof.every((p) => typeof p === 'string' && /^[0-9a-f]{64}$/.test(p)) ||
    !/^[0-9a-f]{64}$/.test(root) ||
    (leafHash !== undefined && (typeof leafHash !== 'string' || !/^[0-9a-f]{64}$/.test(leafHash)))
  ) {
    return sourceMalformed('the log answered without {tree_size, proof[], root}', kind);
  }
  if (answeredIndex !== undefined && answeredIndex !== logIndex) {
    return sourceMalformed(
      `the log answered for entry ${String(answeredIndex).slice(0, 20)}, not ${logIndex}`,
      kind,
    );
  }
  const digest = bundleHashDigest(bundleHash) as Uint8Array;
  const leaf = rfc9162LeafHash(digest);
  if (typeof leafHash === 'string' && leafHash !== toHex(leaf)) {
    return anchorFail(`log entry ${logIndex} holds another hash`, undefined, { kind });
  }
  const ok = verifyRfc9162Inclusion(
    leaf,
    logIndex,
    size,
    proof.map((p) => fromHex(p as string) as Uint8Array),
    fromHex(root) as Uint8Array,
  );
  if (!ok)
    return anchorFail(`the log does not include the bundle hash at index ${logIndex}`, undefined, { kind });
  const inclusion = prepared.parsed.inclusion;
  if (inclusion !== undefined && inclusion.batchSize === size && inclusion.root !== root) {
    return anchorFail(`the log's root at size ${size} is not the receipt's batch_root`, undefined, { kind });
  }
  const warnings = [...prepared.warnings];
  if (inclusion !== undefined && inclusion.batchSize !== size) {
    warnings.push(`log answered at tree size ${size}; the receipt's root is for size ${inclusion.batchSize}`);
  }
  return anchorPass(`log includes the bundle hash at index ${logIndex} (tree size ${size})`, {
    kind,
    confirmations: 1,
    warnings,
  });
}
