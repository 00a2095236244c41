// What each error code means and what to do about it, in one line each, for the console's failure list.
// PROTOCOL §7 registry (packages/core/src/errors.ts); Issue 17 item 1 (explanation linked to the docs).

/** By the three digits after the profile prefix (PROTO-E200 and DCP-E200 mean the same). */
export const EXPLANATIONS = {
  '001': [
    'Bundle schema invalid',
    'The bundle does not have the shape of a V1/V2 signed bundle. Check the producer’s schema version and that the JSON was not truncated.',
  ],
  '002': [
    'Artifact schema invalid',
    'One artifact (RPR, passport, intent, policy decision, audit entry) has a missing, extra or mistyped field. Fix the producer; a signature cannot cover an invalid artifact.',
  ],
  '003': [
    'Version unsupported',
    'The bundle declares a protocol version this verifier does not accept. Re-issue it as V1 1.0 or V2 2.0.',
  ],
  '004': [
    'Manifest missing',
    'A V2 bundle must carry a manifest that binds every artifact hash. Re-export the bundle with its manifest.',
  ],
  100: [
    'Ed25519 signature invalid',
    'A classical signature does not verify: the signed bytes changed after signing or the wrong key signed. Re-sign, or treat the bundle as tampered.',
  ],
  101: [
    'Post-quantum signature invalid',
    'An ML-DSA-65 signature does not verify. The bundle was changed after signing or signed with another key.',
  ],
  102: [
    'Composite binding invalid',
    'The classical and PQ halves are not bound as the protocol requires (pq_over_classical). Re-sign with a conforming SDK.',
  ],
  103: [
    'Signature missing',
    'A signature the tier requires is absent (e.g. the PQ half at elevated/maximum). Sign with both keys.',
  ],
  104: ['Signature expired', 'The signature is outside its validity window. Produce a fresh bundle.'],
  200: [
    'Audit hash chain broken',
    'An audit entry’s prev_hash does not match the hash of the entry before it: an entry was changed, removed or reordered. The timeline marks where.',
  ],
  201: [
    'Manifest hash mismatch',
    'An artifact’s hash differs from the one the manifest signed: the artifact was edited after signing.',
  ],
  202: [
    'Merkle root mismatch',
    'The audit Merkle root does not match the entries: entries were added, removed or changed.',
  ],
  203: [
    'Dual hash mismatch',
    'The SHA-256 and SHA3-256 chains disagree. One chain was recomputed without the other: treat as tampering.',
  ],
  204: [
    'Intent hash mismatch',
    'An audit entry points at an intent whose hash differs from the bundle’s intent.',
  ],
  300: [
    'Agent revoked',
    'The jurisdiction’s signed revocation list names this agent. Do not accept its bundles; see the revocation service.',
  ],
  301: ['Signing key expired', 'A key was used after its expires_at. Rotate keys and re-sign.'],
  302: [
    'Signing key revoked',
    'A key whose status is revoked signed this bundle. Reject it; rotate the key.',
  ],
  303: [
    'Key id mismatch',
    'A kid does not derive from its public key. The key set was edited or built incorrectly.',
  ],
  304: [
    'Responsible principal record invalid',
    'The RPR does not bind the agent’s keys as required. Re-issue the RPR.',
  ],
  400: [
    'Tier insufficient',
    'The bundle was produced at a lower security tier than this verifier requires. Produce it at the required tier.',
  ],
  401: [
    'Policy violation',
    'The action breaks the configured policy. Check the policy decision and the verifier policy.',
  ],
  402: [
    'Downgrade attempt',
    'The bundle claims a lower tier than its intent calls for. Produce it at the tier the intent resolves to.',
  ],
  403: ['Capability denied', 'The agent acted outside its passport’s capabilities.'],
  500: [
    'Session nonce invalid',
    'The artifacts do not share one valid session nonce: parts of different sessions were mixed.',
  ],
  501: ['Session expired', 'The session ended before the bundle was verified. Produce a new session.'],
  502: ['Session replay', 'This session was already seen. A replayed bundle is rejected.'],
  503: [
    'Sequence out of order',
    'Entries, checkpoints or lists arrived out of order (or a list rolled back).',
  ],
  600: ['A2A handshake failed', 'The agent-to-agent handshake did not complete; retry.'],
  601: ['Peer bundle rejected', 'The peer’s bundle failed verification.'],
  602: ['Capability mismatch', 'The peer lacks the requested capabilities.'],
  603: ['A2A session closed', 'The agent-to-agent session is closed; open a new one.'],
  604: ['Decryption failed', 'An AES-GCM payload did not decrypt: wrong key or altered ciphertext.'],
  700: ['Rate limit exceeded', 'Too many requests; wait for Retry-After and try again.'],
  701: ['Circuit open', 'A dependency is failing and calls are paused; retry later.'],
  702: ['Backpressure', 'The service is busy; retry shortly.'],
  900: ['Internal error', 'The service failed; retry, and report it with the request id if it persists.'],
  901: ['Algorithm unavailable', 'The bundle uses an algorithm this verifier does not support.'],
  902: ['HSM error', 'The hardware security module failed; retry later.'],
};

/** `PROTO-E200` → {title, text, anchor}; undefined for an unknown code. */
export function explain(code) {
  const match = /^[A-Z]+-E(\d{3})$/.exec(String(code));
  if (!match) return undefined;
  const entry = EXPLANATIONS[match[1]] ?? EXPLANATIONS[Number(match[1])];
  if (!entry) return undefined;
  return { title: entry[0], text: entry[1], anchor: `E${match[1]}` };
}
