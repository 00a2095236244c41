// The anchoring API of @proto/core this service uses, in one place. The names below live in
// packages/core/src/anchor/, exported by core's index.
export {
  ANCHORED_EVENT_TOPIC0,
  type AnchorStatus,
  buildAnchorBatch,
  buildAnchorPayload,
  bundleHashDigest,
  DEFAULT_FINAL_CONFIRMATIONS,
  finalConfirmationsFor,
  opReturnData,
  opReturnScript,
  verifyAnchorInclusion,
} from '@proto/core';
