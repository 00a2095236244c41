// Version routing: V1, V2, the legacy root-tooling format and unknown input are told apart.
// PROTOCOL §5.1, §6.1, §6.11; DECISIONS D11.
import { describe, expect, it } from 'vitest';
import { detectBundleVersion } from './detect.ts';
import { HAS_SHARED_VECTORS, readShared, upstream, V1_GOLDEN } from './test-support.ts';

describe('detectBundleVersion', () => {
  it.skipIf(!HAS_SHARED_VECTORS)('recognises the upstream V1 and V2 files', () => {
    expect(detectBundleVersion(readShared(V1_GOLDEN))).toBe('1.0');
    expect(detectBundleVersion(upstream('basic_signed_by_rpr_keys'))).toBe('2.0');
  });

  it.each([
    [{ dcp_version: '2.0', bundle: {}, signature: {} }, 'legacy-v2'],
    [{ bundle: {}, bundle_manifest: {}, signature: {} }, 'legacy-v2'],
    [{ bundle: {}, signature: { binding: 'composite' } }, 'legacy-v2'],
    [{ bundle: {}, signature: { domain_sep: 'DCP-BUNDLE-SIG-v2' } }, 'legacy-v2'],
    [{ bundle: { dcp_bundle_version: '1.0' }, signature: {} }, '2.0'], // a V2 shape with a wrong version: E003 later
    [{ bundle: { manifest: {} }, signature: {} }, '2.0'],
    [{ bundle: {}, signature: { composite_sig: {} } }, '2.0'],
    [{ bundle: {}, signature: { sig_b64: 'x' } }, '1.0'],
    [{ bundle: { responsible_principal_record: { dcp_version: '1.0' } }, signature: {} }, '1.0'],
    [{ bundle: {}, signature: {} }, 'unknown'],
    [{ signature: { sig_b64: 'x' } }, 'unknown'],
    [[], 'unknown'],
    [null, 'unknown'],
    ['{"bundle":{}}', 'unknown'],
  ])('%j → %s', (value, expected) => {
    expect(detectBundleVersion(value)).toBe(expected);
  });
});
