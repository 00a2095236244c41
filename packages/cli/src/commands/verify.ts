// `proto verify`: runs the /verify checklist locally and prints exactly the JSON POST /verify answers.
// SPEC.md "POST /verify" and "Verification modes"; DECISIONS D9–D12 (modes, tiers, response shape).
import { atOption } from '../at-option.ts';
import type { Command } from '../command.ts';
import type { VerifierOptions } from '../core.ts';
import {
  applyEvidence,
  evidenceOptions,
  hasReceipt,
  wantsEvidence,
  withRequestEvidence,
} from '../evidence-checks.ts';
import { integerOption, SIZE } from '../integer-option.ts';
import {
  CliError,
  EXIT_NOT_VERIFIED,
  EXIT_OK,
  inputName,
  isPlainObject,
  loadCore,
  printJson,
  readJsonInput,
  twoReadingsMessage,
} from '../io.ts';
import { renderVerdict, wantsJson } from '../render-verdict.ts';
import { WITNESS_OPTIONS } from '../witness-options.ts';
import { verifyBatch } from './verify-batch.ts';

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'verify a signed bundle (or a /verify request body); prints the /verify response',
  usage: ['FILE|- [options]', '--batch DIR|FILE... [options]'],
  description: `Verifies a signed bundle, V1 or V2. On a terminal it prints a readable report; with
--json, or when the output is not a terminal, the JSON that POST /verify answers.
FILE (or - for standard input) holds a signed bundle {bundle, signature} or a
/verify request body {signed_bundle, public_key_b64?, anchor_receipt?,
jurisdiction_attestation?}, whose receipt and attestation are checked as --receipt and
--attestation documents are.`,
  options: [
    {
      flags: '--key <B64>',
      description: 'public key (base64) for V1 bundles whose signature has no signer key',
    },
    {
      flags: '--mode <MODE>',
      description:
        'operator mode (the floor of the resolved tier): classical_only, hybrid_preferred, hybrid_required, pq_only (default hybrid_preferred)',
    },
    {
      flags: '--profile <P>',
      description: 'proto (default) or dcp-ai: signing contexts and error-code prefix',
    },
    { flags: '--policy <FILE>', description: 'VerifierPolicy JSON (SPEC.md shape)' },
    {
      flags: '--require-principal-signature',
      description:
        "fail (PROTO-E401) a V2 bundle no key of the RPR's binding_keys signed, instead of verifying it with a warning (the policy member require_principal_signature; the flag wins over the file's)",
    },
    {
      flags: '--at <TIME>',
      description:
        'verify as of this RFC 3339 instant (2026-01-01T12:00:00Z; a leap second counts as the next midnight) instead of now',
    },
    { flags: '--json', description: 'print the POST /verify JSON even on a terminal' },
    {
      flags: '--revocation-list <FILE|URL>',
      description: "a signed revocation list: the bundle's agent must not be in it (D20)",
    },
    {
      flags: '--revocation-key <B64>',
      description: 'a key trusted to sign that list (repeatable)',
      repeatable: true,
    },
    {
      flags: '--attestation <FILE|URL>',
      description: "a jurisdiction attestation for this bundle's RPR, agent, jurisdiction (D21)",
    },
    {
      flags: '--attestation-key <B64>',
      description: 'an issuer key trusted to sign it (repeatable)',
      repeatable: true,
    },
    {
      flags: '--attestation-max-age-days <N>',
      description:
        "oldest attested_at accepted for an attestation without expires_at, in days (default 30; the service's ATTESTATION_MAX_AGE_DAYS)",
    },
    {
      flags: '--receipt <FILE|URL>',
      description: 'an anchor receipt for this bundle, checked against --rpc, --esplora or --log (D19)',
    },
    { flags: '--rpc <URL>', description: 'EVM JSON-RPC endpoint where a contract-chain receipt is checked' },
    { flags: '--esplora <URL>', description: 'Esplora API base URL where a Bitcoin receipt is checked' },
    {
      flags: '--log <URL>',
      description:
        'a transparency log: checks the --receipt there, or without --receipt looks the bundle hash up in it and proves its inclusion',
    },
    {
      flags: '--log-key <VKEY>',
      description:
        "the log's verifier key <origin>+<key id>+<base64> (repeatable); its signed checkpoint must carry the proof",
      repeatable: true,
    },
    ...WITNESS_OPTIONS,
    {
      flags: '--timeout <MS>',
      description:
        'per remote request, the whole answer included, 1 to 600000 (default 10000); an answer is read up to 16 MiB and a redirect is not followed (give the final URL)',
    },
    {
      flags: '--batch',
      description:
        'verify every FILE (a DIR stands for its *.json files) on all cores; one NDJSON line per file, {file, ...the /verify response}, in order',
    },
  ],
  epilog: `Exit codes: 0 verified (and every evidence check given passed), 1 not verified, 2 unusable
input or bad option (a list or receipt that cannot be read or fetched), 3 internal error.
`,
  positionals: { min: 1, max: Number.POSITIVE_INFINITY },
  async run({ values, positionals }, io) {
    const { createVerifier, decodeBase64Strict, isProfileName, isVerificationMode, VERIFICATION_MODES } =
      await loadCore();
    const source = positionals[0] as string;
    const mode = values['mode'];
    if (mode !== undefined && !isVerificationMode(mode))
      throw usage(`--mode must be one of ${VERIFICATION_MODES.join(', ')}, got '${String(mode)}'`);
    const profile = values['profile'];
    if (profile !== undefined && !isProfileName(profile))
      throw usage(`--profile must be proto or dcp-ai, got '${String(profile)}'`);
    const key = values['key'];
    if (key !== undefined && (typeof key !== 'string' || decodeBase64Strict(key) === undefined)) {
      throw usage('--key must be standard padded base64');
    }
    const at = values['at'];
    const time = atOption(at);
    const clock = time === undefined ? undefined : () => time;
    const policyPath = values['policy'];
    if (policyPath === '-' && source === '-')
      throw usage('--policy and the bundle cannot both be read from standard input');
    // P452: the operator's maximum age of an attestation without expires_at, as ATTESTATION_MAX_AGE_DAYS sets it.
    const attestationMaxAgeDays = integerOption(
      values['attestation-max-age-days'],
      'attestation-max-age-days',
      SIZE,
    );
    const policy = typeof policyPath === 'string' ? await readJsonInput(policyPath, io) : undefined;
    // P556: core's option, which wins over the policy member (P502), as the other members' options do.
    const principalRequired =
      values['require-principal-signature'] === true ? { requirePrincipalSignature: true } : {};

    if (values['batch'] === true) {
      const batchOptions = {
        ...(profile !== undefined ? { profile } : {}),
        ...(mode !== undefined ? { mode } : {}),
        ...(attestationMaxAgeDays !== undefined ? { attestationMaxAgeDays } : {}),
        ...principalRequired,
      };
      const setup = { options: { ...batchOptions, ...(policy !== undefined ? { policy } : {}) } };
      // P504: refused here, as one FILE's options are, before a worker thread throws it as an internal error.
      const checked = createVerifier(setup.options);
      if (!checked.ok) throw optionsRefused(policyPath, checked.error.message);
      return verifyBatch(
        positionals,
        { ...setup, ...(typeof at === 'string' ? { at } : {}), ...(typeof key === 'string' ? { key } : {}) },
        io,
      );
    }
    if (positionals.length > 1) throw usage('one FILE at a time (or --batch DIR|FILE…)');
    const input = await readJsonInput(source, io);
    if (!isPlainObject(input)) {
      throw new CliError(
        `${inputName(source)}: expected a signed bundle or a /verify request object, got ${describe(input)}`,
      );
    }
    const twice = twoReadingsMessage(input);
    if (twice !== undefined) throw new CliError(`${inputName(source)}: ${twice}`);
    const request: Record<string, unknown> =
      'signed_bundle' in input ? { ...input } : { signed_bundle: input };
    if (typeof key === 'string') request['public_key_b64'] = key;

    const options: VerifierOptions = {
      ...(profile !== undefined ? { profile } : {}),
      ...(mode !== undefined ? { mode } : {}),
      ...(policy !== undefined ? { policy } : {}),
      ...(clock !== undefined ? { clock } : {}),
      ...(attestationMaxAgeDays !== undefined ? { attestationMaxAgeDays } : {}),
      ...principalRequired,
    };
    const verifier = createVerifier(options);
    if (!verifier.ok) throw optionsRefused(policyPath, verifier.error.message);
    // P317: the request file's own attestation and receipt are checked, as POST /verify checks them.
    const evidence = withRequestEvidence(
      evidenceOptions(values, clock?.() ?? new Date(), attestationMaxAgeDays),
      request,
    );
    const json = wantsJson(values, io);
    // The bundle's hashes are for a receipt (P74: the SHA3-256 one too, as the receipt is read after the
    // analysis) or a log look-up (P123); the verdict printed has neither.
    const analysis = verifier.value.analyze(request, {
      bundleHash: hasReceipt(evidence) || evidence.log !== undefined,
      bundleHashSecondary: hasReceipt(evidence),
    });
    let response = verifier.value.finalize(analysis, clock?.() ?? new Date());
    if (wantsEvidence(evidence)) {
      // Progress lines stay out of --json runs: whoever asked for JSON is a program, not a person waiting.
      const quiet = json ? { ...io, stderrIsTerminal: false } : io;
      response = await applyEvidence(response, analysis, verifier.value.profile, evidence, quiet);
    }
    if (json) printJson(io, response);
    else io.stdout(renderVerdict(response));
    return response.verified ? EXIT_OK : EXIT_NOT_VERIFIED;
  },
};

/** The verifier refused its options: most often the --policy file's, which is then named. */
function optionsRefused(policyPath: unknown, message: string): CliError {
  const where = typeof policyPath === 'string' ? `${inputName(policyPath)}: ` : '';
  return new CliError(`${where}${message}`);
}

function usage(message: string): CliError {
  return new CliError(message, { showUsage: true });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
