// Tells the bundle formats apart before any check runs: V1, V2, the legacy root-tooling "V2", or unknown.
// PROTOCOL §5.1 (V1), §6.1 (V2), §6.11 (legacy format: recognise and reject); DECISIONS D11.
import { isRecord, prop, propRecord } from './json.ts';

export type DetectedVersion = '1.0' | '2.0' | 'legacy-v2' | 'unknown';

/**
 * - `legacy-v2`: the repo root tooling's format (§6.11): top-level `dcp_version: "2.0"` or
 *   `bundle_manifest`, or a signature with `binding: "composite"` or `domain_sep`.
 * - `2.0`: a `bundle` carrying `dcp_bundle_version` (any value: the version check reports a wrong
 *   one) or a `manifest`, or a signature carrying `composite_sig`.
 * - `1.0`: a signature with V1 members (`sig_b64`, `bundle_hash`, `signer.public_key_b64`), or a
 *   bundle whose RPR says `dcp_version: "1.0"`.
 * - `unknown`: anything else (including non-objects).
 */
export function detectBundleVersion(signedBundle: unknown): DetectedVersion {
  if (!isRecord(signedBundle)) return 'unknown';
  const signature = propRecord(signedBundle, 'signature');
  if (
    prop(signedBundle, 'dcp_version') !== undefined ||
    prop(signedBundle, 'bundle_manifest') !== undefined ||
    prop(signature, 'binding') === 'composite' ||
    prop(signature, 'domain_sep') !== undefined
  ) {
    return 'legacy-v2';
  }
  const bundle = propRecord(signedBundle, 'bundle');
  if (bundle === undefined) return 'unknown';
  if (
    prop(bundle, 'dcp_bundle_version') !== undefined ||
    prop(bundle, 'manifest') !== undefined ||
    prop(signature, 'composite_sig') !== undefined
  ) {
    return '2.0';
  }
  if (
    prop(signature, 'sig_b64') !== undefined ||
    prop(signature, 'bundle_hash') !== undefined ||
    prop(propRecord(bundle, 'responsible_principal_record'), 'dcp_version') === '1.0'
  ) {
    return '1.0';
  }
  return 'unknown';
}
