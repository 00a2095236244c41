// Counts the anchor look-ups made at the operator's sources (P154), for proto_anchor_verify_lookups_total: a source
// that is down, too slow, too big or redirecting shows up as kind/skipped/E701, not only in callers' warnings.
import { type AnchorCheck, errorCode, type ProtocolProfile } from '@proto/core';
import type { AnchorLookupCount } from './metrics.ts';

export function countAnchorLookup(
  counts: Map<string, AnchorLookupCount>,
  result: AnchorCheck,
  profile: ProtocolProfile,
): void {
  // Bounded labels: three kinds (or "unknown" for a receipt that did not parse), three statuses, a few codes.
  const labels = {
    kind: result.kind ?? 'unknown',
    status: result.status,
    code: result.code === undefined ? 'none' : errorCode(result.code, profile),
  };
  const key = `${labels.kind}|${labels.status}|${labels.code}`;
  counts.set(key, { labels, count: (counts.get(key)?.count ?? 0) + 1 });
}
