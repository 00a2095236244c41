// Record ids of the /v2 endpoints: the id pattern, content ids, vitality chain hashes, testament versions.
// Implements SPEC.md Limits / D14 (`^[\w:.\-]{1,256}$`, content ids) and D16 + PROTOCOL §9.2 (report hash).
import { hashCanonicalV2, type Result } from '@proto/core';

/** SPEC.md Limits: every id in a /v2 path or record (ASCII `\w`, as upstream's gateway). */
export const ID_PATTERN = /^[\w:.-]{1,256}$/;
export const ID_PATTERN_TEXT = '^[\\w:.\\-]{1,256}$';

export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/** D14: the id of a kind without a natural one, `sha256:<hex of SHA-256(jcs(record))>`, signature included. */
export function contentId(record: unknown): Result<string> {
  return hashCanonicalV2('sha256', record);
}

/**
 * `sha256:` + SHA-256(jcs(record without composite_sig)): what the record's signer signed, whatever signature it
 * carries. P514 keys one copy per payload of a content-id kind by it; a consent's use is kept under it (P511).
 */
export function payloadHash(record: Readonly<Record<string, unknown>>): Result<string> {
  const { composite_sig: _signature, ...unsigned } = record;
  return hashCanonicalV2('sha256', unsigned);
}

/**
 * D16 / PROTOCOL §9.2: a vitality report's chain hash, `sha256:` + SHA-256(jcs(report without
 * composite_sig)), as the upstream SDK computes it (its payload hash). The next report names it as
 * `prev_report_hash`.
 */
export const vitalityReportHash = payloadHash;

/**
 * Storage id of one testament version: `<agent_id>:v<testament_version>`. The suffix is parsed from the
 * end, so no two (agent, version) pairs share an id. Undefined when it would exceed 256 characters.
 */
export function testamentVersionId(agentId: string, version: number): string | undefined {
  const id = `${agentId}:v${version}`;
  return isValidId(id) ? id : undefined;
}
