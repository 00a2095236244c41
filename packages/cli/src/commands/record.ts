// `proto record sign|verify`: sign a /v2 record with a key set the way the upstream SDK does, or check one.
// Issue 15 item 5; PROTOCOL §3 (record contexts, payload without the signature member), §4.2 (composite).
import type { Command, ParsedCommandLine } from '../command.ts';
import {
  CliError,
  type CliIo,
  EXIT_NOT_VERIFIED,
  EXIT_OK,
  inputName,
  isPlainObject,
  loadCore,
  printJson,
  readJsonInput,
} from '../io.ts';

const KINDS = `KIND is a record kind (commissioning_certificate, vitality_report, …), lifecycle_transition for the
body of POST /v2/lifecycle/transition, or human_confirmation for the HumanConfirmationV2 a succession_record nests
as human_consent (signed by the human: the principal key set by default). KEYS is a key file from
\`proto build --keys-out\` ({agent, principal}) or one key set {classical, pq?}.`;

const KEYS_OPTION = { flags: '--keys <FILE>', description: 'key file (required)' };
const PROFILE_OPTION = {
  flags: '--profile <P>',
  description: 'proto (default) or dcp-ai: the signing contexts',
};

// One body for both actions: they read the key file and the record the same way, then part at the signature.
async function signOrVerify(
  action: 'sign' | 'verify',
  { values, positionals }: ParsedCommandLine,
  io: CliIo,
): Promise<number> {
  const core = await loadCore();
  const [kind, source] = positionals as [string, string];
  // P515: the nested consent has a signature rule of its own but no route, so it is not among the record kinds.
  if (core.recordSignatureRule(kind) === undefined) {
    const kinds = [...Object.keys(core.RECORD_SIGNATURE_RULES), core.HUMAN_CONFIRMATION];
    throw new CliError(`unknown record kind '${kind}'; one of ${kinds.join(', ')}`);
  }
  const profile = core.findProfile(String(values['profile'] ?? 'proto'));
  if (profile === undefined) throw new CliError('--profile must be proto or dcp-ai', { showUsage: true });
  if (typeof values['keys'] !== 'string') throw new CliError('--keys FILE is required', { showUsage: true });
  const keyFile = await readJsonInput(values['keys'], io);
  // A consent is the human's word: its principal keys sign it unless told otherwise (P497 refuses the agent's).
  const who = values['as'] ?? (kind === core.HUMAN_CONFIRMATION ? 'principal' : 'agent');
  if (who !== 'agent' && who !== 'principal') throw new CliError('--as must be agent or principal');
  const setJson = isPlainObject(keyFile) && isPlainObject(keyFile[who]) ? keyFile[who] : keyFile;
  const keys = core.bundleKeysFromJson(setJson);
  if (!keys.ok) throw new CliError(`${values['keys']}: ${keys.error.message}`);
  const read = await readJsonInput(source, io);
  if (!isPlainObject(read)) throw new CliError(`${inputName(source)}: expected a JSON object`);
  const backend = core.selectCryptoBackend();

  if (action === 'sign') {
    const input = await withNestedConsent(kind, read, values['consent'], source, io);
    const signed = core.signRecord(backend, profile, kind, input, {
      classical: keys.value.classical,
      ...(keys.value.pq === undefined ? {} : { pq: keys.value.pq }),
    });
    printJson(io, signed);
    return EXIT_OK;
  }
  // Every key of the file may have signed it (agent or principal).
  const known = new Map<string, { alg: string; publicKey: Uint8Array }>();
  const sets =
    isPlainObject(keyFile) && (isPlainObject(keyFile['agent']) || isPlainObject(keyFile['principal']))
      ? [keyFile['agent'], keyFile['principal']]
      : [keyFile];
  for (const set of sets) {
    const parsed = core.bundleKeysFromJson(set);
    if (!parsed.ok) continue;
    for (const pair of [parsed.value.classical, parsed.value.pq]) {
      if (pair !== undefined) known.set(pair.kid, { alg: pair.alg, publicKey: pair.publicKey });
    }
  }
  const verdict = core.verifyRecordSignature(backend, profile, kind, read, (kid) => known.get(kid));
  printJson(io, {
    valid: verdict.ok,
    kind,
    subjects: core.recordSubjects(kind, read),
    ...(verdict.ok
      ? { kid: verdict.classicalKid, pq_kid: verdict.pqKid }
      : { code: verdict.code, message: verdict.message }),
  });
  return verdict.ok ? EXIT_OK : EXIT_NOT_VERIFIED;
}

/**
 * P564: `--consent FILE` nests a signed human_confirmation as the succession record's `human_consent` before the agent
 * signs it (the step RECORDS.md did with jq). Not checked here: the service verifies it (P497), `record verify` can.
 */
async function withNestedConsent(
  kind: string,
  record: Record<string, unknown>,
  consentSource: unknown,
  recordSource: string,
  io: CliIo,
): Promise<Record<string, unknown>> {
  if (consentSource === undefined) return record;
  if (kind !== 'succession_record' || typeof consentSource !== 'string')
    throw new CliError('--consent FILE nests a signed human_confirmation in a succession_record only', {
      showUsage: true,
    });
  if (consentSource === '-' && recordSource === '-')
    throw new CliError('the record and --consent cannot both be read from stdin', { showUsage: true });
  const consent = await readJsonInput(consentSource, io);
  if (!isPlainObject(consent)) throw new CliError(`${inputName(consentSource)}: expected a JSON object`);
  return { ...record, human_consent: consent };
}

const recordSignCommand: Command = {
  name: 'sign',
  summary: 'print the record with its composite signature',
  usage: ['KIND FILE|- --keys KEYS [--as agent|principal] [--consent FILE] [--profile P]'],
  description: `Prints the record with its composite signature (composite_sig, or human_composite_sig for a
delegation_mandate) over jcs(record without it), under the kind's context.

${KINDS}`,
  options: [
    KEYS_OPTION,
    {
      flags: '--as <WHO>',
      description:
        'agent or principal: which key set of a build key file signs (default agent; principal for human_confirmation)',
    },
    {
      flags: '--consent <FILE>',
      description:
        "succession_record only: a signed human_confirmation (from `record sign human_confirmation`), nested as the record's human_consent before it is signed",
    },
    PROFILE_OPTION,
  ],
  positionals: { min: 2, max: 2 },
  run: (args, io) => signOrVerify('sign', args, io),
};

const recordVerifyCommand: Command = {
  name: 'verify',
  summary: 'check the composite signature of a record',
  usage: ['KIND FILE|- --keys KEYS [--profile P]'],
  description: `Checks the record's composite signature against the public keys in KEYS (any key set of a build
key file); exit 0 valid, 1 not valid.

${KINDS}`,
  options: [KEYS_OPTION, PROFILE_OPTION],
  positionals: { min: 2, max: 2 },
  run: (args, io) => signOrVerify('verify', args, io),
};

export const recordCommand: Command = {
  name: 'record',
  summary: 'sign or verify a /v2 record (commissioning certificate, transition statement, …)',
  description: 'Signs /v2 records the way the upstream SDK does, or checks their signature.',
  subcommands: [recordSignCommand, recordVerifyCommand],
};
