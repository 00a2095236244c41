// `proto log prove --tiles URL --index N`: an inclusion proof computed from a log's C2SP tiles alone.
// Issue 18 item 1; c2sp.org/tlog-tiles, tlog-checkpoint; RFC 9162 §2.1.3. With --key the checkpoint must be
// signed by those keys (all of them) before its size and root are used; without, it is read unchecked.
import {
  DEFAULT_PROFILE,
  errorCode,
  inclusionProofFromTiles,
  openLogCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  rootFromTiles,
  selectCryptoBackend,
  type TileFetcher,
  tilePath,
  toHex,
  verifyRfc9162Inclusion,
} from '@proto/core';
import type { ParsedCommandLine } from '../command.ts';
import { fetchOkText } from '../fetch-answer.ts';
import { INDEX, integerOption, SIZE } from '../integer-option.ts';
import { CliError, type CliIo, EXIT_NOT_VERIFIED, EXIT_OK, printJson } from '../io.ts';
import { progress } from '../progress.ts';
import { timeoutOption } from '../timeout-option.ts';
import { checkWitnesses, witnessFlags } from '../witness-options.ts';

/** The tree size a checkpoint states; past 2^53 - 1 a JavaScript number no longer holds it exactly. */
function checkpointSize(text: string | undefined, url: string): number {
  const size = Number(text);
  if (!Number.isSafeInteger(size))
    throw new CliError(`${url}: the checkpoint's tree size ${String(text)} is past 2^53 - 1`);
  return size;
}

/** A hash tile of width w is w hashes of 32 bytes (c2sp.org/tlog-tiles): no answer may be longer. */
const HASH_BYTES = 32;

/** GET, bounded, timed body included, no redirect (P162); any failure is exit 2, as an unreadable input. */
async function get(url: string, timeoutMs: number, maxBytes?: number): Promise<Uint8Array> {
  const { bytes } = await fetchOkText(url, { timeoutMs, ...(maxBytes === undefined ? {} : { maxBytes }) });
  return bytes;
}

export async function runProve(values: ParsedCommandLine['values'], io: CliIo): Promise<number> {
  const base = values.tiles;
  if (typeof base !== 'string' || !/^https?:\/\//.test(base))
    throw new CliError('--tiles must be an http(s) URL');
  const prefix = base.replace(/\/+$/, '');
  // Every number before the network is asked (P178).
  const index = integerOption(values.index, 'index', INDEX);
  if (index === undefined) throw new CliError('--index is required', { showUsage: true });
  const treeSizeOption = integerOption(values['tree-size'], 'tree-size', SIZE);
  const timeoutMs = timeoutOption(values['timeout']) ?? 10_000;
  const { text: note } = await fetchOkText(`${prefix}/checkpoint`, { timeoutMs });
  // c2sp.org/tlog-checkpoint: origin, tree size, base64 root. Anything else (a sign-in page) is not the log's.
  if (!/^[^\n]+\n(0|[1-9]\d{0,15})\n[A-Za-z0-9+/]{43}=\n/.test(note))
    throw new CliError(`${prefix}/checkpoint: the answer is not a checkpoint (c2sp.org/tlog-checkpoint)`);
  const keyTexts = values.key === undefined ? [] : [values.key].flat();
  // P182, as P169/P177 for `verify --log`: with a key to check, an answer that is not a signed note at all (cut
  // before its signatures, a garbled signature line) needs no key to send and says nothing of the log: unusable,
  // exit 2, as the page refused above. A note that parses is judged by its signature (exit 1 when it fails).
  const notANote = (reason: string) =>
    new CliError(`${prefix}/checkpoint: the answer is not a signed note: ${reason}`);
  let signedBy: string[] | undefined;
  if (keyTexts.length > 0) {
    const parsed = parseSignedNote(note);
    if (!parsed.ok) throw notANote(parsed.error.message);
    const keys = keyTexts.map((text) => {
      const key = parseVerifierKey(String(text));
      if (!key.ok) throw new CliError(`--key ${String(text).slice(0, 40)}…: ${key.error.message}`);
      return key.value;
    });
    const opened = openLogCheckpoint(note, keys, { backend: selectCryptoBackend() });
    if (!opened.ok) {
      const { code, message } = opened.error;
      printJson(io, {
        verified: false,
        error: { code: errorCode(code, DEFAULT_PROFILE), name: code, message },
      });
      return EXIT_NOT_VERIFIED;
    }
    signedBy = opened.value.verifiedBy.map((key) => key.keyId.toString(16).padStart(8, '0'));
  }
  // P60: a witness quorum on a checkpoint whose log key was not checked would not pin which log it is.
  const witnesses = witnessFlags(values);
  if (witnesses.witnessKeys.length > 0 && keyTexts.length === 0)
    throw new CliError("--witness-key needs --key (the log's own verifier key)", { showUsage: true });
  const witnessed = await checkWitnesses(note, witnesses);
  // Unreachable after the parse above; kept so the order of the checks cannot turn it into a verdict.
  if (witnessed?.unreadable === true) throw notANote(witnessed.error?.message ?? 'unreadable');
  if (witnessed?.error !== undefined) {
    const { code, message } = witnessed.error;
    printJson(io, {
      verified: false,
      checkpoint_witnesses: witnessed.witnesses,
      error: { code: errorCode(code, DEFAULT_PROFILE), name: code, message },
    });
    return EXIT_NOT_VERIFIED;
  }
  // The checkpoint's second line is the tree size and third the base64 root (c2sp.org/tlog-checkpoint).
  const lines = note.split('\n');
  const treeSize = treeSizeOption ?? checkpointSize(lines[1], `${prefix}/checkpoint`);
  if (index >= treeSize) throw new CliError(`--index ${index} is outside a tree of size ${treeSize}`);
  const fetchTile: TileFetcher = async (level, tileIndex, width) => {
    const url = `${prefix}/${tilePath(level, tileIndex, width)}`;
    const tile = await get(url, timeoutMs, width * HASH_BYTES);
    // Checked here so that a short tile is the log's fault (exit 2), not an internal error of the proof code.
    if (tile.byteLength !== width * HASH_BYTES)
      throw new CliError(
        `${url}: a tile of width ${width} is ${width * HASH_BYTES} bytes, not ${tile.byteLength}`,
      );
    return tile;
  };
  progress(io, `fetching the tiles of entry ${index} in a tree of ${treeSize}`);
  const { leafHash, proof } = await inclusionProofFromTiles(index, treeSize, fetchTile);
  const root = await rootFromTiles(treeSize, fetchTile);
  const checkpointRoot = Buffer.from(lines[2] ?? '', 'base64');
  const matchesCheckpoint =
    values['tree-size'] === undefined ? Buffer.from(root).equals(checkpointRoot) : undefined;
  const verified =
    verifyRfc9162Inclusion(leafHash, index, treeSize, proof, root) && matchesCheckpoint !== false;
  printJson(io, {
    verified,
    log_index: index,
    tree_size: treeSize,
    leaf_hash: toHex(leafHash),
    proof: proof.map(toHex),
    root: toHex(root),
    ...(matchesCheckpoint === undefined ? {} : { matches_checkpoint: matchesCheckpoint }),
    ...(signedBy === undefined ? {} : { checkpoint_signed_by: signedBy }),
    ...(witnessed === undefined ? {} : { checkpoint_witnesses: witnessed.witnesses }),
  });
  return verified ? EXIT_OK : EXIT_NOT_VERIFIED;
}
