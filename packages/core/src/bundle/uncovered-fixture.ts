// Test fixture (`@proto/core/testing`): one V2 bundle with members no signature covers, and the hashes of the bundle
// as signed, by PROTOCOL §8.3's definition (not core's bundle-hash code). P247: every surface must give these.
import { createHash } from 'node:crypto';
import { canonicalBytesV2 } from '../canonical/index.ts';
import { buildSignedBundle } from './build/index.ts';
import { unwrap } from './build/sign.ts';
import type { JsonObject } from './build/types.ts';

export interface UncoveredMemberBundle {
  /** The signed bundle with `bundle.note` and a top-level `extra`, which no signature or manifest hash covers. */
  readonly withMembers: JsonObject;
  /** The same bundle as it was signed. */
  readonly asSigned: JsonObject;
  /** `sha256:` / `sha3-256:` of jcs({bundle, signature}) of `asSigned` (PROTOCOL §8.3, the SDK's computeBundleHash). */
  readonly bundleHash: string;
  readonly bundleHashSecondary: string;
  /** The passport's classical kid (the key directory names the bundle hash that bound it). */
  readonly agentKid: string;
}

export function uncoveredMemberBundle(): UncoveredMemberBundle {
  const built = buildSignedBundle({ entries: 2 });
  const asSigned = built.signed_bundle;
  const withMembers = structuredClone(asSigned);
  (withMembers['bundle'] as JsonObject)['note'] = 'added after signing';
  withMembers['extra'] = { by: 'a forwarder' };
  const bytes = unwrap(
    canonicalBytesV2({ bundle: asSigned['bundle'], signature: asSigned['signature'] }),
    'the bundle',
  );
  return {
    withMembers,
    asSigned,
    bundleHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    bundleHashSecondary: `sha3-256:${createHash('sha3-256').update(bytes).digest('hex')}`,
    agentKid: built.keys.agent.classical.kid,
  };
}
