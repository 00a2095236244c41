// `proto revocation verify`: checks a jurisdiction's signed revocation list offline (signature, trusted key,
// freshness, rollback) and looks an agent up. DECISIONS D20; SPEC.md "Revocation record and … list".

import {
  DEFAULT_PROFILE,
  errorCode,
  findProfile,
  findRevocation,
  lookAlikeIdWarnings,
  type RevocationEntry,
  readAlikeRevocationWarnings,
  verifyRevocationList,
} from '@proto/core';
import { atOption } from '../at-option.ts';
import type { Command, ParsedCommandLine } from '../command.ts';
import { INDEX, integerOption } from '../integer-option.ts';
import { CliError, EXIT_NOT_VERIFIED, EXIT_OK, printJson, readJsonInput } from '../io.ts';
import { listOption, stringOption } from '../option-values.ts';

/** --at TIME (default now) and --profile, shared with `proto attestation verify`. */
export function timeAndProfile(values: ParsedCommandLine['values']) {
  const now = atOption(values['at']) ?? new Date();
  const profileName = stringOption(values, 'profile');
  const profile = profileName === undefined ? DEFAULT_PROFILE : findProfile(profileName);
  if (profile === undefined) {
    throw new CliError(`--profile must be proto or dcp-ai, got '${profileName}'`, { showUsage: true });
  }
  return { now, profile };
}

const revocationVerifyCommand: Command = {
  name: 'verify',
  summary: 'verify a signed revocation list offline and look agents up',
  usage: ['FILE|- --key B64 [--key B64 …] [--agent ID …] [options]'],
  description: `Verifies a jurisdictional revocation list (GET /.well-known/proto-revocations.json) offline:
the schema, the Ed25519 signature over context(Revocation) ‖ 0x00 ‖ jcs(list without signature)
by one of the trusted keys, that now is not past next_update (stale), and, with
--min-list-number, that list_number is not lower than one already seen (rollback).
With --agent, also reports whether each agent is revoked by the list.`,
  options: [
    {
      flags: '--key <B64>',
      description: 'a trusted Ed25519 public key (standard base64); repeat for rotation',
      repeatable: true,
    },
    {
      flags: '--agent <ID>',
      description: 'an agent (or signer) id to look up; repeat for several',
      repeatable: true,
    },
    {
      flags: '--min-list-number <N>',
      description: 'the highest list_number already accepted (refuse a rollback), 0 to 9007199254740991',
    },
    { flags: '--jurisdiction <J>', description: 'the jurisdiction the list must be for' },
    {
      flags: '--at <TIME>',
      description: 'check freshness as of this RFC 3339 instant (2026-01-01T12:00:00Z) instead of now',
    },
    {
      flags: '--profile <P>',
      description: 'proto (default) or dcp-ai: signing context and error-code prefix',
    },
  ],
  epilog: `Prints {verified, list_number, issuer, jurisdiction, updated_at, next_update, entries, agents?, warnings?,
error?}; warnings name look-alike entries, and entries that read as an --agent the list does not revoke.
Exit codes: 0 verified and no --agent revoked, 1 not verified or an --agent revoked, 2 bad usage.
`,
  positionals: { min: 1, max: 1 },
  async run({ values, positionals }, io) {
    const keys = listOption(values, 'key');
    if (keys.length === 0) throw new CliError('at least one --key is required', { showUsage: true });
    const { now, profile } = timeAndProfile(values);
    const min = integerOption(values['min-list-number'], 'min-list-number', INDEX);
    const jurisdiction = stringOption(values, 'jurisdiction');
    const list = await readJsonInput(positionals[0] as string, io);

    const result = verifyRevocationList(list, keys, {
      now,
      profile,
      ...(min === undefined ? {} : { minListNumber: min }),
      ...(jurisdiction === undefined ? {} : { expectedJurisdiction: jurisdiction }),
    });
    const verified = result.ok ? result.value : result.error.authentic;
    const agents = listOption(values, 'agent').map((agentId) => {
      const entry = verified === undefined ? undefined : findRevocation(verified.list, [agentId]);
      return { agent_id: agentId, revoked: entry !== undefined, ...(entry ? { entry } : {}) };
    });
    const warnings = verified === undefined ? [] : lookAlikeWarnings(verified.list.entries, agents);
    printJson(io, {
      verified: result.ok,
      ...(verified === undefined
        ? {}
        : {
            list_number: verified.listNumber,
            issuer: verified.list.issuer,
            jurisdiction: verified.list.jurisdiction,
            updated_at: verified.list.updated_at,
            next_update: verified.list.next_update,
            entries: verified.list.entries.length,
            signer: verified.signer,
          }),
      ...(agents.length > 0 ? { agents } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(result.ok
        ? {}
        : {
            error: {
              code: errorCode(result.error.code, profile),
              reason: result.error.reason,
              message: result.error.message,
            },
          }),
    });
    return result.ok && agents.every((a) => !a.revoked) ? EXIT_OK : EXIT_NOT_VERIFIED;
  },
};

/**
 * P456: the list's look-alike entries (P383's rule: invisible characters, not NFC, compatibility forms, mixed or
 * whole-script Cyrillic and Greek), and for each --agent the list does not revoke, the entries that read the same
 * (core's `readAlikeRevocationWarnings`, in the words POST /verify uses since P516): a person reading the list would
 * take that agent for revoked. Warnings, never a failure: the list revokes exactly the ids it names.
 */
function lookAlikeWarnings(
  entries: readonly RevocationEntry[],
  agents: readonly { readonly agent_id: string }[],
): string[] {
  const warnings = lookAlikeIdWarnings(
    entries.map((e, i) => [`entries[${i}].agent_id`, e.agent_id] as const),
  );
  for (const agent of agents) warnings.push(...readAlikeRevocationWarnings({ entries }, agent.agent_id));
  return warnings;
}

export const revocationCommand: Command = {
  name: 'revocation',
  summary: 'verify a signed jurisdictional revocation list offline and look agents up',
  description: 'Checks jurisdictional revocation lists (GET /.well-known/proto-revocations.json) offline.',
  subcommands: [revocationVerifyCommand],
};
