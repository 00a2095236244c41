// What a V2 bundle's hash covers: the bundle without the members no signature covers (P247), as core's
// splitUncoveredV2 reads it (packages/core/src/bundle/uncovered.ts; browser-modules.test.ts compares the lists).

/** The `bundle` members of V2 that a signature covers (core's V2_BUNDLE_MEMBERS). */
export const V2_COVERED_BUNDLE_MEMBERS = Object.freeze([
  'dcp_bundle_version',
  'manifest',
  'responsible_principal_record',
  'agent_passport',
  'intent',
  'policy_decision',
  'audit_entries',
  'pq_checkpoints',
]);

const COVERED = new Set(V2_COVERED_BUNDLE_MEMBERS);

/** A V2 bundle without the members no signature covers: what its hash covers, as the verifier reads it. */
export function coveredBundleV2(bundle) {
  return Object.fromEntries(Object.entries(bundle).filter(([key]) => COVERED.has(key)));
}
