// SPDX-License-Identifier: Apache-2.0
// Anchoring contract of the anchor service: one event per anchored 32-byte value (a batch's RFC 9162 root).
// SPEC.md "Anchoring formats" and "Events"; DECISIONS D19 (indexed bundleHash, block-wide log index in receipts).
pragma solidity 0.8.30;

/// @title ProtoAnchor
/// @notice Records that a 32-byte hash existed no later than the block that includes the call.
/// @dev Deliberately minimal: no owner, no storage. An event proves existence at a time whoever sent
///      it, so there is nothing to guard; verifiers read the event from the transaction named in a receipt.
contract ProtoAnchor {
    /// @notice Emitted once per call; `timestamp` is the including block's time.
    event Anchored(bytes32 indexed bundleHash, uint256 timestamp);

    /// @notice Anchors `bundleHash` (for the anchor service: the root of a batch of bundle hashes).
    function anchor(bytes32 bundleHash) external {
        emit Anchored(bundleHash, block.timestamp);
    }
}
