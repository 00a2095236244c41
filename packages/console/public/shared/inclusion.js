// Checks, in the browser, that a bundle hash is in a transparency log: signed checkpoint, then RFC 9162 proof.
// Issue 17 items 1–2; D18 (log API: /root/signed, /proof/:i?tree_size=, /lookup). Nothing the log says is trusted unchecked.
import { fromHex } from './bytes.js';
import { leafHash, verifyInclusion } from './merkle.js';
import { parseCheckpoint, verifyNote } from './note.js';
import { bounded, isLogIndex, textOf } from './ui.js';
import { checkWitnessQuorum, describeWitnesses } from './witnesses.js';

/** GET `url` as JSON; `signal` aborts it (the verify page's look-up of a result that was cleared, P163). */
async function json(url, signal) {
  const response = await fetch(url, { headers: { accept: 'application/json' }, signal });
  const body = await response.json().catch(() => undefined);
  return { status: response.status, body };
}

/** The latest signed checkpoint, its Ed25519 signature checked against the keys the log shows. */
export async function signedCheckpoint(logUrl, signal) {
  const { status, body } = await json(`${logUrl}/root/signed`, signal);
  if (status !== 200 || typeof body?.checkpoint !== 'string') {
    throw new Error(body?.error?.message ?? `the log answered ${status} for its checkpoint`);
  }
  const signature = await verifyNote(body.checkpoint, body.verifier_keys ?? []);
  const parsed = signature.text === undefined ? undefined : parseCheckpoint(signature.text);
  return { summary: body, signature, checkpoint: parsed };
}

/** A value the log sent, as text for a message: strings quoted (so `"1e3"` is told from 1000), bounded. */
function shown(value) {
  return bounded(textOf(typeof value === 'string' ? JSON.stringify(value) : value), 120);
}

/**
 * Proof of the leaf at `index` against a checkpoint; leaf hash recomputed from the bundle hash. The index is
 * checked here too, whatever the caller checked (P186): it goes into the `/proof/` path, where `-1` or
 * `"0/../../x"` (which the URL parser turns into `/x`) would ask the log for something else, and a proof only
 * exists for an index below the checkpoint's size.
 */
export async function proveEntry(logUrl, index, bundleHash, checkpoint, signal) {
  const size = checkpoint?.size;
  if (!isLogIndex(size) || !isLogIndex(index) || index >= size) {
    throw new Error(`no inclusion proof exists for index ${shown(index)} in a tree of size ${shown(size)}`);
  }
  const digest = fromHex(String(bundleHash).replace(/^sha256:/, ''));
  if (digest?.length !== 32) throw new Error('the bundle hash is not sha256:<64 hex>');
  const leaf = await leafHash(digest);
  const { status, body } = await json(`${logUrl}/proof/${index}?tree_size=${checkpoint.size}`, signal);
  if (status !== 200) throw new Error(body?.error?.message ?? `the log answered ${status} for the proof`);
  const proof = (body.proof ?? []).map(fromHex);
  if (proof.some((p) => p?.length !== 32)) throw new Error('the proof holds a malformed hash');
  const result = await verifyInclusion({
    index,
    treeSize: checkpoint.size,
    leaf,
    proof,
    root: checkpoint.root,
  });
  return { ...result, leaf, proof, index, treeSize: checkpoint.size };
}

/**
 * Whole check for the verify page: look the hash up, then prove it against a signed checkpoint. With the
 * operator's witnesses ({keys, quorum}, P61) the checkpoint must also carry their quorum of cosignatures.
 * `signal` aborts every request of the check.
 */
export async function checkBundleInLog(logUrl, bundleHash, witnesses, signal) {
  const found = await json(`${logUrl}/lookup?bundle_hash=${encodeURIComponent(bundleHash)}`, signal);
  if (found.status === 404) return { state: 'missing', message: 'This bundle hash is not in the log.' };
  if (found.status !== 200) throw new Error(found.body?.error?.message ?? `the log answered ${found.status}`);
  const index = found.body?.log_index;
  // P181: the index goes into a comparison and the /proof/ path; anything but an index could steer that request.
  if (!isLogIndex(index)) {
    return {
      state: 'fail',
      message: `The log answered a malformed index (${shown(index)}); nothing more was asked of it.`,
    };
  }
  const { summary, signature, checkpoint } = await signedCheckpoint(logUrl, signal);
  if (!signature.ok || !checkpoint) {
    return { state: 'fail', message: `The log's checkpoint does not verify (${signature.reason}).` };
  }
  let witnessed = '';
  if (witnesses?.keys?.length > 0) {
    const quorum = await checkWitnessQuorum(summary.checkpoint, witnesses.keys, witnesses.quorum);
    if (!quorum.met) {
      return {
        state: 'fail',
        message: `The log's checkpoint lacks its witness quorum: ${describeWitnesses(quorum)}. Refused.`,
        witnesses: quorum,
      };
    }
    witnessed = ` Checkpoint ${describeWitnesses(quorum)}.`;
  }
  if (index >= checkpoint.size) {
    return {
      state: 'pending',
      message: `Entry #${index} is logged but not yet covered by a signed checkpoint.${witnessed}`,
    };
  }
  const proof = await proveEntry(logUrl, index, bundleHash, checkpoint, signal);
  return proof.ok
    ? {
        state: 'included',
        message: `Included at index ${index} of a signed tree of ${checkpoint.size} (proof verified in this browser).${witnessed}`,
        index,
      }
    : { state: 'fail', message: `Inclusion proof for #${index} does not verify: ${proof.reason}.`, index };
}
