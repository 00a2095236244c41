// Public API of the transparency-log formats: signed notes, checkpoints, tlog-proofs and offline proof checks.
// DECISIONS D18; c2sp.org/signed-note, tlog-checkpoint, tlog-proof (formats learnt from the specs, our own code).
export {
  formatLogCheckpoint,
  type LogCheckpoint,
  type OpenLogCheckpointOptions,
  openLogCheckpoint,
  parseLogCheckpoint,
  signLogCheckpoint,
  type VerifiedLogCheckpoint,
} from './checkpoint.ts';
export {
  COSIGNATURE_TYPE_ED25519,
  type Cosigner,
  type CosignerKey,
  checkWitnessQuorum,
  cosignCheckpoint,
  cosignedMessage,
  cosignerKey,
  cosignerKeyId,
  formatCosignerKey,
  formatSignatureLine,
  parseCosignerKey,
  type VerifiedCosignature,
  verifyCosignatures,
  type WitnessPolicy,
} from './cosignature.ts';
export {
  formatKeyId,
  formatSignedNote,
  formatVerifierKey,
  isValidKeyName,
  MAX_NOTE_SIGNATURES,
  NOTE_ML_DSA_65_IDENTIFIER,
  NOTE_TYPE_ED25519,
  type NoteSignature,
  type NoteSigner,
  type NoteVerifierKey,
  noteKeyId,
  noteSignatureType,
  noteVerifierKey,
  parseSignedNote,
  parseVerifierKey,
  type SignedNote,
  signNote,
  type VerifiedNote,
  type VerifyNoteOptions,
  verifySignedNote,
} from './note.ts';
export {
  type LogTreeHead,
  parseTlogHashList,
  type TlogInclusionCheck,
  type TlogInclusionVerified,
  tlogLeafHash,
  tlogLeafInput,
  verifyTlogConsistency,
  verifyTlogInclusion,
} from './proofs.ts';
export {
  consistencyProofFromTiles,
  encodeTileIndex,
  inclusionProofFromTiles,
  rootFromTiles,
  TILE_WIDTH,
  type TileFetcher,
  tilePath,
  tileWidth,
} from './tiles.ts';
export {
  formatTlogProof,
  parseTlogProof,
  TLOG_PROOF_HEADER,
  type TlogProof,
  type TlogProofVerified,
  verifyTlogProof,
} from './tlog-proof.ts';
export {
  type AddCheckpointDecision,
  type AddCheckpointRefusal,
  type AddCheckpointRequest,
  decideAddCheckpoint,
  formatAddCheckpointRequest,
  MAX_WITNESS_PROOF_LINES,
  parseAddCheckpointRequest,
  type WitnessedHead,
  type WitnessedLog,
} from './witness-protocol.ts';
export {
  checkCosignatureLine,
  type RefusedCosignature,
  tallyWitnessCosignatures,
  type WitnessTally,
} from './witness-quorum.ts';
