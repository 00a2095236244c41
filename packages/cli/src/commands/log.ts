// `proto log verify`: checks a signed log checkpoint, a bundle_hash's inclusion and two checkpoints' consistency offline.
// SPEC.md "Transparency log service" (no live call with a recent signed root); DECISIONS D18; c2sp.org/tlog-proof.
import {
  type CoreError,
  checkParsedJson,
  DEFAULT_PROFILE,
  errorCode,
  type NoteVerifierKey,
  openLogCheckpoint,
  parseSignedNote,
  parseTlogProof,
  parseVerifierKey,
  prototypeMemberMessage,
  prototypeMemberPath,
  selectCryptoBackend,
  TLOG_PROOF_HEADER,
  toHex,
  type VerifiedLogCheckpoint,
  verifyTlogConsistency,
  verifyTlogInclusion,
} from '@proto/core';
import type { Command, ParsedCommandLine } from '../command.ts';
import { INDEX, integerOption } from '../integer-option.ts';
import {
  CliError,
  type CliIo,
  EXIT_NOT_VERIFIED,
  EXIT_OK,
  inputName,
  isPlainObject,
  printJson,
  readInput,
} from '../io.ts';
import { listOption, stringOption } from '../option-values.ts';
import { checkWitnesses, WITNESS_OPTIONS, witnessFlags } from '../witness-options.ts';
import { runProve } from './log-prove.ts';

/**
 * P323: JSON text with one canonical reading, as every other `proto` input is read (`readJsonInput`, P320): a member
 * named twice, 1e400 or a lone surrogate is unusable input, where JSON.parse silently kept one reading; and (P387) no
 * member named `__proto__` or `constructor` holding `prototype`. `what` is
 * the message's wording for text that is not JSON at all.
 */
function strictJson(text: string, name: string, what = 'invalid JSON'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new CliError(`${name}: ${what}: ${(cause as Error).message}`);
  }
  const strict = checkParsedJson(text, value);
  if (!strict.ok) throw new CliError(`${name}: JSON has no canonical form: ${strict.error.message}`);
  // P387: no member that reaches a prototype, as `readJsonInput` and the services refuse it (P336, P381).
  const at = prototypeMemberPath(value);
  if (at !== undefined) throw new CliError(`${name}: ${prototypeMemberMessage(at)}`);
  return value;
}

/** A checkpoint note from its text, or from the `checkpoint` field of GET /root/signed's JSON. */
function checkpointText(text: string, name: string): string {
  if (text.trimStart().startsWith('{')) {
    const json = strictJson(text, name);
    if (!isPlainObject(json) || typeof json['checkpoint'] !== 'string') {
      throw new CliError(`${name}: expected a signed note or JSON with a "checkpoint" string`);
    }
    return json['checkpoint'];
  }
  return text;
}

async function readKeys(specs: readonly string[], io: CliIo): Promise<NoteVerifierKey[]> {
  if (specs.length === 0) throw new CliError('at least one --key is required', { showUsage: true });
  const keys: NoteVerifierKey[] = [];
  for (const spec of specs) {
    let texts: string[];
    if (spec.includes('+')) {
      texts = [spec];
    } else {
      const content = (await readInput(spec, io)).trim();
      if (content.startsWith('[')) {
        const parsed = strictJson(content, inputName(spec));
        if (!Array.isArray(parsed))
          throw new CliError(`${inputName(spec)}: expected a JSON array of verifier keys`);
        texts = parsed.map(String);
      } else {
        texts = content
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line.length > 0);
      }
    }
    for (const text of texts) {
      const key = parseVerifierKey(text);
      if (!key.ok) throw new CliError(`--key ${text.slice(0, 40)}…: ${key.error.message}`);
      keys.push(key.value);
    }
  }
  return keys;
}

async function readJsonFile(source: string, io: CliIo): Promise<unknown> {
  return strictJson(await readInput(source, io), inputName(source));
}

/**
 * P182, as P169/P177 read the log's answer for `verify --log`: a checkpoint that is not a signed note at all (a
 * saved sign-in page, a note cut before its signatures) is no verdict on the log, so it is unreadable input (exit
 * 2), as a proof file that is not one already is; a note that parses is judged (a bad signature: exit 1).
 */
function signedNote(text: string, name: string): string {
  const parsed = parseSignedNote(text);
  if (!parsed.ok) throw notANote(name, parsed.error.message);
  return text;
}

function notANote(name: string, reason: string): CliError {
  return new CliError(`${name}: the checkpoint is not a signed note: ${reason}`);
}

function describe(error: CoreError) {
  return { code: errorCode(error.code, DEFAULT_PROFILE), name: error.code, message: error.message };
}

function summary(checkpoint: VerifiedLogCheckpoint) {
  return {
    origin: checkpoint.origin,
    tree_size: checkpoint.size,
    root: toHex(checkpoint.root),
    signed_by: checkpoint.verifiedBy.map((k) => ({
      alg: k.alg,
      key_id: k.keyId.toString(16).padStart(8, '0'),
    })),
  };
}

interface ProofInput {
  readonly index?: number;
  readonly treeSize?: number;
  readonly proof: unknown;
  /** The checkpoint a C2SP tlog-proof carries. */
  readonly checkpoint?: string;
}

async function readProof(source: string, io: CliIo): Promise<ProofInput> {
  const text = await readInput(source, io);
  const name = inputName(source);
  if (text.startsWith(TLOG_PROOF_HEADER)) {
    const parsed = parseTlogProof(text);
    if (!parsed.ok) throw new CliError(`${name}: ${parsed.error.message}`);
    return { index: parsed.value.index, proof: parsed.value.proof, checkpoint: parsed.value.checkpoint };
  }
  const json = strictJson(text, name, 'neither a C2SP tlog-proof nor JSON');
  if (Array.isArray(json)) return { proof: json };
  if (!isPlainObject(json) || !Array.isArray(json['proof']))
    throw new CliError(`${name}: expected JSON with a "proof" array`);
  const index = proofCount(json, 'log_index', name);
  const treeSize = proofCount(json, 'tree_size', name);
  return {
    proof: json['proof'],
    ...(index === undefined ? {} : { index }),
    ...(treeSize === undefined ? {} : { treeSize }),
  };
}

/**
 * P194: a count the proof file names is the user's input, so one that is not a non-negative safe integer is a bad
 * file (exit 2), not a verdict: ignored, a string "9" would skip the comparison with --index; passed on, -1 or 1.5
 * came back as "not verified" as if the log had been caught out.
 */
function proofCount(json: Record<string, unknown>, field: string, name: string): number | undefined {
  if (!Object.hasOwn(json, field)) return undefined;
  const value = json[field];
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new CliError(
    `${name}: ${field} must be a non-negative integer below 2^53, not ${JSON.stringify(value)}`,
  );
}

async function runVerify(values: ParsedCommandLine['values'], io: CliIo): Promise<number> {
  const keys = await readKeys(listOption(values, 'key'), io);
  const witnesses = witnessFlags(values);
  const backend = selectCryptoBackend();
  const origin = stringOption(values, 'origin');
  const openOptions = {
    backend,
    require: values['any-key'] === true ? 'any' : 'all',
    ...(origin ? { origin } : {}),
  } as const;

  const bundleHash = stringOption(values, 'bundle-hash');
  const proofSource = stringOption(values, 'proof');
  if ((bundleHash === undefined) !== (proofSource === undefined)) {
    throw new CliError('--bundle-hash and --proof go together', { showUsage: true });
  }
  const oldSource = stringOption(values, 'old-checkpoint');
  const consistencySource = stringOption(values, 'consistency');
  if ((oldSource === undefined) !== (consistencySource === undefined)) {
    throw new CliError('--old-checkpoint and --consistency go together', { showUsage: true });
  }
  const indexOption = integerOption(values['index'], 'index', INDEX);
  const proof = proofSource === undefined ? undefined : await readProof(proofSource, io);

  const checkpointSource = stringOption(values, 'checkpoint');
  let noteText: string;
  let noteName: string;
  if (checkpointSource !== undefined) {
    noteName = inputName(checkpointSource);
    noteText = checkpointText(await readInput(checkpointSource, io), noteName);
    if (proof?.checkpoint !== undefined && proof.checkpoint !== noteText) {
      throw new CliError('the tlog-proof carries another checkpoint than --checkpoint');
    }
  } else if (proof?.checkpoint !== undefined && proofSource !== undefined) {
    noteName = `${inputName(proofSource)} (its checkpoint)`;
    noteText = proof.checkpoint;
  } else {
    throw new CliError('--checkpoint is required', { showUsage: true });
  }
  signedNote(noteText, noteName);

  const fail = (error: CoreError, partial: Record<string, unknown> = {}): number => {
    printJson(io, { verified: false, ...partial, error: describe(error) });
    return EXIT_NOT_VERIFIED;
  };

  const checkpoint = openLogCheckpoint(noteText, keys, openOptions);
  if (!checkpoint.ok) return fail(checkpoint.error);
  const out: Record<string, unknown> = { checkpoint: summary(checkpoint.value) };
  // P60: with --witness-key, the checkpoint counts only with its witness quorum.
  const witnessed = await checkWitnesses(noteText, witnesses);
  // The tally's "cannot read the note" is the same outcome as the parse above (unreachable after it; kept so the
  // order of the checks cannot turn it into a verdict).
  if (witnessed?.unreadable === true) throw notANote(noteName, witnessed.error?.message ?? 'unreadable');
  if (witnessed !== undefined) {
    out['witnesses'] = witnessed.witnesses;
    if (witnessed.error !== undefined) return fail(witnessed.error, out);
  }

  if (proof !== undefined && bundleHash !== undefined) {
    const index = indexOption ?? proof.index;
    if (index === undefined)
      throw new CliError('--index is required: the proof file does not name the index');
    if (proof.index !== undefined && proof.index !== index) {
      throw new CliError(`--index ${index} differs from the proof's log_index ${proof.index}`);
    }
    if (proof.treeSize !== undefined && proof.treeSize !== checkpoint.value.size) {
      return fail(
        {
          code: 'MERKLE_ROOT_MISMATCH',
          message: `the proof is for tree size ${proof.treeSize}, the checkpoint has ${checkpoint.value.size} (fetch /proof/${index}?tree_size=${checkpoint.value.size})`,
        },
        out,
      );
    }
    const inclusion = verifyTlogInclusion(checkpoint.value, {
      bundleHash,
      index,
      proof: proof.proof as string[],
    });
    if (!inclusion.ok) return fail(inclusion.error, out);
    out['inclusion'] = {
      bundle_hash: bundleHash,
      log_index: index,
      leaf_hash: inclusion.value.leafHash,
      verified: true,
    };
  }

  if (oldSource !== undefined && consistencySource !== undefined) {
    const olderText = checkpointText(await readInput(oldSource, io), inputName(oldSource));
    const older = openLogCheckpoint(signedNote(olderText, inputName(oldSource)), keys, openOptions);
    if (!older.ok) return fail(older.error, out);
    const json = await readJsonFile(consistencySource, io);
    const hashes = Array.isArray(json) ? json : isPlainObject(json) ? json['proof'] : undefined;
    if (isPlainObject(json)) {
      if (typeof json['first'] === 'number' && json['first'] !== older.value.size) {
        throw new CliError(
          `the consistency proof starts at size ${json['first']}, the old checkpoint has ${older.value.size}`,
        );
      }
      if (typeof json['second'] === 'number' && json['second'] !== checkpoint.value.size) {
        throw new CliError(
          `the consistency proof ends at size ${json['second']}, the checkpoint has ${checkpoint.value.size}`,
        );
      }
    }
    const consistent = verifyTlogConsistency(older.value, checkpoint.value, (hashes ?? null) as string[]);
    if (!consistent.ok) return fail(consistent.error, out);
    out['consistency'] = {
      old_tree_size: older.value.size,
      tree_size: checkpoint.value.size,
      verified: true,
    };
  }

  printJson(io, { verified: true, ...out });
  return EXIT_OK;
}

const EPILOG_EXIT = 'Exit codes: 0 verified, 1 not verified, 2 bad usage or unreadable input.\n';

const logProveCommand: Command = {
  name: 'prove',
  summary: "compute an inclusion proof from the log's C2SP tiles alone",
  usage: [
    '--tiles URL --index N [--tree-size N] [--key VKEY]... [--witness-key VKEY... [--witness-quorum K]]',
    '[--timeout MS]',
  ],
  description: `Computes an inclusion proof from the log's C2SP tiles alone; with --key, the log's checkpoint must
be signed by those keys, and with --witness-key carry --witness-quorum of their cosignatures.`,
  options: [
    { flags: '--tiles <URL>', description: "the log's tiles base URL" },
    { flags: '--index <I>', description: 'the log_index of the entry to prove, 0 to 9007199254740991' },
    {
      flags: '--tree-size <N>',
      description: "the tree size to prove in, 1 to 9007199254740991 (default: the checkpoint's)",
    },
    {
      flags: '--key <VKEY>',
      description:
        'a verifier key <origin>+<key id>+<base64> that must have signed the checkpoint; repeat for both keys',
      repeatable: true,
    },
    ...WITNESS_OPTIONS,
    {
      flags: '--timeout <MS>',
      description: 'per request, the whole answer included, 1 to 600000 (default 10000)',
    },
  ],
  epilog: `Prints {verified, log_index, tree_size, leaf_hash, proof, root, matches_checkpoint?,
checkpoint_signed_by?, checkpoint_witnesses?, error?}.
The checkpoint is read up to 16 MiB and each tile at its exact size; a redirect is not followed
(give the final URL). A log that is unreachable, slow, oversized or redirects is exit 2, and so is,
with --key, a checkpoint that is not a signed note at all (one whose signature fails is exit 1).
${EPILOG_EXIT}`,
  positionals: { min: 0, max: 0 },
  run: ({ values }, io) => runProve(values, io),
};

const logVerifyCommand: Command = {
  name: 'verify',
  summary: 'check a checkpoint, an inclusion proof and a consistency proof offline',
  usage: [
    '--checkpoint FILE --key VKEY [--key VKEY] [--bundle-hash H [--index I] --proof FILE]',
    '[--old-checkpoint FILE --consistency FILE] [--witness-key VKEY... [--witness-quorum K]]',
  ],
  description: `Checks transparency-log material offline, against verifier keys you trust:
  1. the checkpoint (C2SP signed note) is signed by every --key given (Ed25519 and/or ML-DSA-65), and with
     --witness-key carries --witness-quorum cosignatures of distinct given witnesses (c2sp.org/tlog-cosignature);
  2. with --bundle-hash and --proof: the bundle hash is the leaf at the index in that checkpoint's tree;
  3. with --old-checkpoint and --consistency: the checkpoint's tree extends the older one.
FILE may be - for standard input, once.`,
  options: [
    {
      flags: '--checkpoint <FILE>',
      description: 'the note from GET /checkpoint, or the JSON of GET /root/signed',
    },
    {
      flags: '--key <VKEY>',
      description:
        'a verifier key <origin>+<key id>+<base64>, or a file of them (one per line or a JSON array); repeat for both keys. Take keys from a channel you trust, never from the response being checked.',
      repeatable: true,
    },
    { flags: '--bundle-hash <H>', description: 'sha256:<64 lowercase hex>' },
    {
      flags: '--index <I>',
      description: 'the log_index, 0 to 9007199254740991 (optional when the proof file names it)',
    },
    {
      flags: '--proof <FILE>',
      description:
        'JSON of GET /proof/:log_index?tree_size=<checkpoint size>, or the C2SP text of GET /tlog-proof/:log_index (it carries its own checkpoint; --checkpoint is then optional)',
    },
    { flags: '--old-checkpoint <FILE>', description: 'an earlier checkpoint of the same log (note or JSON)' },
    {
      flags: '--consistency <FILE>',
      description: 'JSON of GET /consistency?first=<old size>&second=<checkpoint size>',
    },
    { flags: '--origin <ORIGIN>', description: "the origin to expect (default: the keys' name)" },
    {
      flags: '--any-key',
      description: 'accept the checkpoint when one of the given keys signed it (default: all)',
    },
    ...WITNESS_OPTIONS,
  ],
  epilog: `Prints {verified, checkpoint, witnesses?, inclusion?, consistency?, error?}; witnesses: {quorum,
cosigned, refused}: the witnesses that cosigned and configured witnesses' lines that did not count.
A checkpoint that is not a signed note at all (a saved sign-in page, a note cut before its signatures)
is unreadable input (exit 2); one whose signature does not verify is not verified (exit 1).
${EPILOG_EXIT}`,
  positionals: { min: 0, max: 0 },
  run: ({ values }, io) => runVerify(values, io),
};

export const logCommand: Command = {
  name: 'log',
  summary: 'verify transparency-log checkpoints, inclusion and consistency proofs offline',
  description: 'Proves and checks entries of a transparency log (C2SP checkpoints and tiles).',
  subcommands: [logProveCommand, logVerifyCommand],
};
