// `@proto/core/verifier`: what a verification thread needs, without the rest of the index (the bundle
// builder, the anchor checks, the log's notes and tiles, revocation documents). A thread loads only these
// modules at its start; the same modules as the index's, so a value crosses between the two unchanged.
// P125; the worker's graph is services/verification/src/worker.ts and the modules it imports.
export { receiptNamesSecondary } from './anchor/receipt.ts';
export type { AnalyzeOptions, BundleAnalysis, SecurityTier, VerifyResponse } from './bundle/types.ts';
export { createVerifier } from './bundle/verifier.ts';
export { prototypeMemberMessage, prototypeMemberPath } from './canonical/prototype-member.ts';
export { checkParsedJson } from './canonical/strict-json.ts';
export { deriveKid } from './crypto/kid.ts';
export { selectCryptoBackend } from './crypto/select-backend.ts';
export { decodeBase64Strict } from './encoding/base64.ts';
export { errorCode } from './errors.ts';
export type { ProtocolProfile } from './profile.ts';
export { instantOf } from './time/instant.ts';
