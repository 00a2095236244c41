// `--witness-key VKEY` (repeatable) and `--witness-quorum K`: the log checkpoint a command relies on must carry
// K cosignatures (c2sp.org/tlog-cosignature, cosignature/v1) from distinct ones of these witnesses. Shared by
// `proto verify --log`, `proto log verify` and `proto log prove`. docs/project-decisions.md P59, P60.
import type { CoreError } from '@proto/core';
import type { CommandOption } from './command.ts';
import { type IntegerRange, integerOption } from './integer-option.ts';
import { CliError } from './io.ts';

/** More than the quorum checked against is refused later (1..n); six digits is far past any witness set. */
const WITNESS_QUORUM: IntegerRange = { min: 1, max: 999_999 };

export const WITNESS_OPTIONS: readonly CommandOption[] = [
  {
    flags: '--witness-key <VKEY>',
    description:
      "a witness's cosignature key <name>+<key id>+<base64> (repeatable); the log's checkpoint must carry --witness-quorum of their cosignatures",
    repeatable: true,
  },
  {
    flags: '--witness-quorum <K>',
    description:
      'how many distinct --witness-key witnesses must have cosigned the checkpoint (1..n; default: all)',
  },
];

export interface WitnessFlags {
  readonly witnessKeys: readonly string[];
  readonly witnessQuorum?: number;
}

/** The flags as given (syntax only; keys are parsed where they are used). A quorum without keys is bad usage. */
export function witnessFlags(values: Readonly<Record<string, unknown>>): WitnessFlags {
  const raw = values['witness-key'];
  const witnessKeys = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
    (v): v is string => typeof v === 'string',
  );
  const quorumText = values['witness-quorum'];
  if (quorumText === undefined) return { witnessKeys };
  const witnessQuorum = integerOption(quorumText, 'witness-quorum', WITNESS_QUORUM) as number;
  if (witnessKeys.length === 0)
    throw new CliError('--witness-quorum needs --witness-key', { showUsage: true });
  return { witnessKeys, witnessQuorum };
}

export interface WitnessCheck {
  readonly verified: boolean;
  /** What goes into the command's JSON: k, who cosigned, configured witnesses' lines not counted. */
  readonly witnesses: {
    readonly quorum: number;
    readonly cosigned: readonly string[];
    readonly refused: readonly string[];
  };
  readonly error?: CoreError;
  /** The tally could not read the note at all (a shape fault of the answer, not a quorum missed: P169). */
  readonly unreadable?: true;
}

/** Parses the keys and k now, so a bad one is bad usage (exit 2) before anything is fetched. */
export async function validateWitnessFlags(flags: WitnessFlags): Promise<void> {
  if (flags.witnessKeys.length === 0) return;
  const { readWitnessRequirement } = await import('@proto/clients');
  const requirement = readWitnessRequirement({
    witnesses: flags.witnessKeys,
    ...(flags.witnessQuorum === undefined ? {} : { quorum: flags.witnessQuorum }),
  });
  if ('error' in requirement) throw new CliError(`--witness-key/--witness-quorum: ${requirement.error}`);
}

/** `log checkpoint cosigned by a, b (witness quorum 2)`: the line a passing check adds to the warnings. */
export function witnessedLine(witnesses: WitnessCheck['witnesses']): string {
  return `log checkpoint cosigned by ${witnesses.cosigned.join(', ')} (witness quorum ${witnesses.quorum})`;
}

/**
 * Counts the witnesses' cosignatures on `note`; undefined when no --witness-key was given. A bad key or a
 * quorum outside 1..n is bad usage (exit 2), a checkpoint below the quorum is `verified: false` (exit 1).
 */
export async function checkWitnesses(note: string, flags: WitnessFlags): Promise<WitnessCheck | undefined> {
  if (flags.witnessKeys.length === 0) return undefined;
  const { readWitnessRequirement, tallySummary } = await import('@proto/clients');
  const { tallyWitnessCosignatures } = await import('@proto/core');
  const requirement = readWitnessRequirement({
    witnesses: flags.witnessKeys,
    ...(flags.witnessQuorum === undefined ? {} : { quorum: flags.witnessQuorum }),
  });
  if ('error' in requirement) throw new CliError(`--witness-key/--witness-quorum: ${requirement.error}`);
  const tally = tallyWitnessCosignatures(note, requirement.keys, requirement.quorum);
  if (!tally.ok) {
    return {
      verified: false,
      witnesses: { quorum: requirement.quorum, cosigned: [], refused: [] },
      error: tally.error,
      unreadable: true,
    };
  }
  const witnesses = tallySummary(tally.value);
  if (tally.value.met) return { verified: true, witnesses };
  return {
    verified: false,
    witnesses,
    error: {
      code: 'SIGNATURE_MISSING',
      message: `the checkpoint carries ${witnesses.cosigned.length} of the ${requirement.quorum} required witness cosignatures${
        witnesses.cosigned.length > 0 ? ` (${witnesses.cosigned.join(', ')})` : ''
      }`,
    },
  };
}
