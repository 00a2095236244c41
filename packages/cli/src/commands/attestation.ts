// `proto attestation verify`: checks a jurisdiction attestation offline (issuer key and window, signature,
// rpr_hash, expiry). DECISIONS D21; PROTOCOL §9.6; SPEC.md "Jurisdiction attestation".

import { errorCode, parseTrustedKey, type TrustedKeyInput, verifyAttestation } from '@proto/core';
import type { Command } from '../command.ts';
import { integerOption, SIZE } from '../integer-option.ts';
import {
  CliError,
  EXIT_NOT_VERIFIED,
  EXIT_OK,
  inputName,
  isPlainObject,
  printJson,
  readJsonInput,
} from '../io.ts';
import { listOption, stringOption } from '../option-values.ts';
import { timeAndProfile } from './revocation.ts';

const attestationVerifyCommand: Command = {
  name: 'verify',
  summary: 'verify an attestation offline against trusted issuer keys',
  usage: ['FILE|- (--key B64 … | --keys FILE) [options]'],
  description: `Verifies an attestation issued by POST /attest offline: the schema, the Ed25519 signature over
context(JurisdictionAttestation) ‖ 0x00 ‖ jcs(attestation without signature) by a trusted issuer
key (inside the key's validity window at attested_at), the expected rpr_hash, agent and
jurisdiction, and that it has not expired. FILE holds {attestation} or the attestation itself.`,
  options: [
    {
      flags: '--key <B64>',
      description: 'a trusted issuer public key (standard base64); repeat for rotation',
      repeatable: true,
    },
    {
      flags: '--keys <FILE>',
      description:
        "the issuer's attestation-keys document ({keys:[{key_id, public_key_b64, valid_from, valid_until}]}); fetch it over a channel you trust",
    },
    {
      flags: '--rpr-hash <H>',
      description: "the bundle's manifest.rpr_hash (sha256:<hex>) the attestation must name",
    },
    { flags: '--agent <ID>', description: 'the agent id it must name' },
    { flags: '--jurisdiction <J>', description: 'the jurisdiction it must name' },
    {
      flags: '--at <TIME>',
      description: 'check expiry as of this RFC 3339 instant (2026-01-01T12:00:00Z) instead of now',
    },
    {
      flags: '--max-age-days <N>',
      description:
        "oldest attested_at accepted when expires_at is null, in days (default 30; the verification service's ATTESTATION_MAX_AGE_DAYS)",
    },
    { flags: '--profile <P>', description: 'proto (default) or dcp-ai' },
  ],
  epilog: `Prints {verified, issuer, jurisdiction, agent_id, rpr_hash, attested_at, expires_at, signer?, error?}.
Exit codes: 0 verified, 1 not verified, 2 bad usage or unreadable input.
`,
  positionals: { min: 1, max: 1 },
  async run({ values, positionals }, io) {
    const source = positionals[0] as string;
    const trusted: TrustedKeyInput[] = [...listOption(values, 'key')];
    const keysFile = stringOption(values, 'keys');
    if (keysFile !== undefined) {
      if (keysFile === '-' && source === '-')
        throw new CliError('--keys and FILE cannot both be standard input');
      const doc = await readJsonInput(keysFile, io);
      const entries =
        isPlainObject(doc) && Array.isArray(doc['keys']) ? doc['keys'] : Array.isArray(doc) ? doc : undefined;
      if (entries === undefined)
        throw new CliError(`${inputName(keysFile)}: expected {keys: [...]} or an array of keys`);
      for (const [i, entry] of entries.entries()) {
        const parsed = parseTrustedKey(entry);
        if (!parsed.ok) throw new CliError(`${inputName(keysFile)}: keys[${i}]: ${parsed.error.message}`);
        trusted.push(parsed.value);
      }
    }
    if (trusted.length === 0)
      throw new CliError('give at least one --key or --keys FILE', { showUsage: true });
    const { now, profile } = timeAndProfile(values);
    // P452: the operator's maximum age, so this command and the service refuse the same attestation.
    const maxAgeDays = integerOption(values['max-age-days'], 'max-age-days', SIZE);
    const rprHash = stringOption(values, 'rpr-hash');
    const agent = stringOption(values, 'agent');
    const jurisdiction = stringOption(values, 'jurisdiction');
    const input = await readJsonInput(source, io);
    const attestation =
      isPlainObject(input) && isPlainObject(input['attestation']) ? input['attestation'] : input;

    const result = verifyAttestation(attestation, trusted, {
      now,
      profile,
      ...(rprHash === undefined ? {} : { expectedRprHash: rprHash }),
      ...(agent === undefined ? {} : { expectedAgentId: agent }),
      ...(jurisdiction === undefined ? {} : { expectedJurisdiction: jurisdiction }),
      ...(maxAgeDays === undefined ? {} : { maxAgeMs: maxAgeDays * 86_400_000 }),
    });
    const doc = isPlainObject(attestation) ? attestation : {};
    const pick = (name: string) => (name in doc ? { [name]: doc[name] } : {});
    printJson(io, {
      verified: result.ok,
      ...pick('issuer'),
      ...pick('jurisdiction'),
      ...pick('agent_id'),
      ...pick('rpr_hash'),
      ...pick('attested_at'),
      ...pick('expires_at'),
      ...(result.ok
        ? { signer: result.value.signer }
        : {
            error: {
              code: errorCode(result.error.code, profile),
              reason: result.error.reason,
              message: result.error.message,
            },
          }),
    });
    return result.ok ? EXIT_OK : EXIT_NOT_VERIFIED;
  },
};

export const attestationCommand: Command = {
  name: 'attestation',
  summary: 'verify a jurisdiction attestation offline against trusted issuer keys',
  description: 'Checks jurisdiction attestations (POST /attest) offline.',
  subcommands: [attestationVerifyCommand],
};
