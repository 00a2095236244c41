// Public API of the two Merkle constructions: the protocol's audit root, and RFC 9162 with stored subtrees.
// PROTOCOL §2.2, RFC 9162 §2.1, DECISIONS D4 (never mixed), D18, D19.
export { protocolMerkleRoot, protocolMerkleRootOfDigests } from './protocol-tree.ts';
export {
  rfc9162ConsistencyProof,
  rfc9162InclusionProof,
  rfc9162LeafHash,
  rfc9162NodeHash,
  rfc9162Root,
  verifyRfc9162Consistency,
  verifyRfc9162Inclusion,
} from './rfc9162.ts';
export {
  completedSubtrees,
  consistencyProofFromSubtrees,
  inclusionProofFromSubtrees,
  rootFromSubtrees,
  type SubtreeCoordinate,
  type SubtreeReader,
  subtreesForConsistency,
  subtreesForInclusion,
  subtreesForRoot,
} from './subtrees.ts';
