// The witness quorum a verifier requires of a log's signed checkpoint before trusting it for a receipt
// (c2sp.org/tlog-cosignature; the log publishes the newest checkpoint that reached its quorum, cosignature
// lines appended). docs/project-decisions.md P59, P60.
import {
  ANCHOR_CHECK_CODES,
  type AnchorCheck,
  anchorFail,
  type CosignerKey,
  parseCosignerKey,
  sourceMalformed,
  tallyWitnessCosignatures,
  type WitnessTally,
} from '@proto/core';

/** Witness vkeys (`<name>+<id>+<base64(0x04 ‖ key)>`) and k; k defaults to every witness. */
export interface WitnessRequirement {
  readonly witnesses: readonly string[];
  readonly quorum?: number;
}

/** Parsed witness keys and k, or why they cannot be used (a message naming the bad key or k). */
export function readWitnessRequirement(
  requirement: WitnessRequirement,
): { readonly keys: CosignerKey[]; readonly quorum: number } | { readonly error: string } {
  const keys: CosignerKey[] = [];
  for (const [i, text] of requirement.witnesses.entries()) {
    const key = parseCosignerKey(text);
    if (!key.ok) return { error: `witness key ${i + 1}: ${key.error.message}` };
    if (keys.some((k) => k.name === key.value.name && k.keyId === key.value.keyId))
      return { error: `witness key ${i + 1} (${key.value.name}) is given twice` };
    keys.push(key.value);
  }
  const quorum = requirement.quorum ?? keys.length;
  if (!Number.isSafeInteger(quorum) || quorum < 1 || quorum > keys.length)
    return {
      error: `witness quorum must be between 1 and ${keys.length} (the witness keys given), got ${quorum}`,
    };
  return { keys, quorum };
}

/** `w.example/a, w.example/b`: the witnesses that cosigned, for messages and warnings. */
export function describeTally(tally: WitnessTally): string {
  const names = tally.cosigned.map((c) => c.key.name);
  const refused = tally.refused.map((r) => `${r.key.name} (${r.reason})`);
  return [
    `cosigned by ${names.length} of the ${tally.quorum} required witness(es)${names.length > 0 ? `: ${names.join(', ')}` : ''}`,
    ...(refused.length > 0 ? [`not counted: ${refused.join('; ')}`] : []),
  ].join('; ');
}

/** The structured form of a tally for AnchorCheck.witnesses. */
export function tallySummary(tally: WitnessTally): NonNullable<AnchorCheck['witnesses']> {
  return {
    quorum: tally.quorum,
    cosigned: tally.cosigned.map((c) => c.key.name),
    refused: tally.refused.map((r) => `${r.key.name}: ${r.reason}`),
  };
}

/**
 * Checks the quorum on `note`: the tally when it is met, else the failed check (E103: a required
 * signature is missing), naming who cosigned and which configured witnesses' lines did not count.
 */
export function checkWitnessedCheckpoint(
  note: string,
  requirement: { readonly keys: readonly CosignerKey[]; readonly quorum: number },
): { readonly tally: WitnessTally } | { readonly failed: AnchorCheck } {
  const tally = tallyWitnessCosignatures(note, requirement.keys, requirement.quorum);
  // P169: the tally fails only on a note that does not parse, an answer without the shape of one (P161).
  if (!tally.ok)
    return { failed: sourceMalformed(`log checkpoint cannot be tallied: ${tally.error.message}`, 'log') };
  if (!tally.value.met) {
    return {
      failed: anchorFail(
        `the log's checkpoint lacks its witness quorum: ${describeTally(tally.value)}`,
        ANCHOR_CHECK_CODES.witnessQuorum,
        { kind: 'log', witnesses: tallySummary(tally.value) },
      ),
    };
  }
  return { tally: tally.value };
}
