// `proto verify` with evidence: the bundle's agent looked up in a signed revocation list (file or URL) and an
// anchor receipt checked against the chain or log the user names, merged into the verdict. D12, D19, D20.
import { redactUrl } from '@proto/clients/redact-url';
import type { BundleAnalysis, ProtocolProfile, VerifyResponse } from '@proto/core';
import { fetchOkText } from './fetch-answer.ts';
import { CliError, type CliIo, inputName, parseJson, parseStrictly, readInput } from './io.ts';
import { checkLogInclusion } from './log-inclusion.ts';
import { listOption, stringOption } from './option-values.ts';
import { progress } from './progress.ts';
import { timeoutOption } from './timeout-option.ts';
import { validateWitnessFlags, type WitnessFlags, witnessFlags } from './witness-options.ts';

export interface EvidenceOptions {
  /** A signed revocation list: a file, `-`, or an http(s) URL. */
  readonly revocationList?: string;
  /** Base64 Ed25519 keys trusted to sign that list. */
  readonly revocationKeys: readonly string[];
  /** A jurisdiction attestation for the bundle's RPR (D21), and the issuer keys trusted to sign it. */
  readonly attestation?: string;
  readonly attestationKeys: readonly string[];
  /** An anchor receipt (or a GET /anchor/... answer holding one). */
  readonly receipt?: string;
  /**
   * P317: the `jurisdiction_attestation` and `anchor_receipt` of a /verify request file, checked as `--attestation`
   * and `--receipt` documents are (POST /verify checks them; the CLI used to drop them without a word).
   */
  readonly attestationDocument?: unknown;
  readonly receiptDocument?: unknown;
  readonly rpc?: string;
  readonly esplora?: string;
  readonly log?: string;
  readonly logKeys: readonly string[];
  /** --witness-key / --witness-quorum: the log's checkpoint must carry this witness quorum (P60). */
  readonly witnesses: WitnessFlags;
  readonly timeoutMs: number;
  readonly now: Date;
  /** --attestation-max-age-days (P452): oldest attested_at accepted without expires_at; core's default when unset. */
  readonly attestationMaxAgeMs?: number;
}

type Detail = NonNullable<VerifyResponse['error_details']>[number];

/** The evidence options of `proto verify`, checked. */
export function evidenceOptions(
  values: Readonly<Record<string, unknown>>,
  now: Date,
  attestationMaxAgeDays?: number,
): EvidenceOptions {
  const text = (name: string) => stringOption(values, name);
  const list = (name: string) => listOption(values, name);
  const url = (name: string): string | undefined => {
    const value = text(name);
    if (value !== undefined && !/^https?:\/\//.test(value)) {
      throw new CliError(`--${name} must be an http(s) URL`, { showUsage: true });
    }
    return value;
  };
  const timeoutMs = timeoutOption(values['timeout']) ?? 10_000;
  const attestation = text('attestation');
  const revocationList = text('revocation-list');
  const receipt = text('receipt');
  const rpc = url('rpc');
  const esplora = url('esplora');
  const log = url('log');
  const witnesses = witnessFlags(values);
  if (witnesses.witnessKeys.length > 0 && log === undefined)
    throw new CliError('--witness-key applies to the checkpoint of --log', { showUsage: true });
  return {
    ...(revocationList === undefined ? {} : { revocationList }),
    revocationKeys: list('revocation-key'),
    ...(attestation === undefined ? {} : { attestation }),
    attestationKeys: list('attestation-key'),
    ...(receipt === undefined ? {} : { receipt }),
    ...(rpc === undefined ? {} : { rpc }),
    ...(esplora === undefined ? {} : { esplora }),
    ...(log === undefined ? {} : { log }),
    logKeys: list('log-key'),
    witnesses,
    timeoutMs,
    now,
    ...(attestationMaxAgeDays === undefined
      ? {}
      : { attestationMaxAgeMs: attestationMaxAgeDays * 86_400_000 }),
  };
}

export function wantsEvidence(options: EvidenceOptions): boolean {
  return (
    options.revocationList !== undefined ||
    hasReceipt(options) ||
    options.attestation !== undefined ||
    options.attestationDocument !== undefined ||
    options.log !== undefined
  );
}

/** A receipt to check: `--receipt`, or the request file's own (P317). */
export function hasReceipt(options: EvidenceOptions): boolean {
  return options.receipt !== undefined || options.receiptDocument !== undefined;
}

/**
 * P317: `options` with the evidence a /verify request file carries (`null` counts as none, as the service reads
 * it). The same evidence given twice, in the file and by option, is a usage error: which one is meant is unclear.
 */
export function withRequestEvidence(
  options: EvidenceOptions,
  request: Readonly<Record<string, unknown>>,
): EvidenceOptions {
  const attestation = request['jurisdiction_attestation'];
  const receipt = request['anchor_receipt'];
  const given = (value: unknown) => value !== undefined && value !== null;
  if (given(attestation) && options.attestation !== undefined)
    throw new CliError(
      'the request carries a jurisdiction_attestation and --attestation names another: give one',
      {
        showUsage: true,
      },
    );
  if (given(receipt) && options.receipt !== undefined)
    throw new CliError('the request carries an anchor_receipt and --receipt names another: give one', {
      showUsage: true,
    });
  return {
    ...options,
    ...(given(attestation) ? { attestationDocument: attestation } : {}),
    ...(given(receipt) ? { receiptDocument: receipt } : {}),
  };
}

/**
 * An evidence document: FILE or '-' read as every input is (`readInput`: strict UTF-8, the file's error named), or a
 * URL; either way with one canonical reading (P320: no member named twice, no 1e400, no lone surrogate), as
 * `readJsonInput` reads the same document for `proto revocation verify` and the service reads a body.
 */
async function readDocument(source: string, io: CliIo, timeoutMs: number): Promise<unknown> {
  const strictly = parseStrictly;
  if (!/^https?:\/\//.test(source)) return strictly(await readInput(source, io), inputName(source));
  // P540: named without its userinfo or query, which may hold the user's key.
  const shown = redactUrl(source);
  progress(io, `fetching ${shown}`);
  // P162: bounded, timed body included, no redirect; each failure is exit 2 (a document that cannot be fetched).
  const { text, contentType } = await fetchOkText(source, { timeoutMs });
  try {
    parseJson(text, shown);
  } catch {
    throw new CliError(`${shown}: the answer is not JSON (Content-Type ${contentType.slice(0, 60)})`);
  }
  return strictly(text, shown);
}

/** Runs the evidence checks the options ask for and merges them into `response` (a failure makes it unverified). */
export async function applyEvidence(
  response: VerifyResponse,
  analysis: BundleAnalysis,
  profile: ProtocolProfile,
  options: EvidenceOptions,
  io: CliIo,
): Promise<VerifyResponse> {
  const {
    addExternalOutcomes,
    anchorOutcome,
    attestationOutcomeInHand,
    bundleReadAlikeRevocationWarnings,
    decideRevocation,
    errorCode,
    unverifiedEvidenceOutcomes,
    verifyAttestation,
    verifyRevocationList,
  } = await import('@proto/core');
  const maxAge = options.attestationMaxAgeMs === undefined ? {} : { maxAgeMs: options.attestationMaxAgeMs };
  if (options.revocationList !== undefined && options.revocationKeys.length === 0)
    throw new CliError('--revocation-list needs --revocation-key');
  if (options.attestation !== undefined && options.attestationKeys.length === 0)
    throw new CliError('--attestation needs --attestation-key');
  // P454: as POST /verify: a bundle that is not verified gets no look-up of its revocation, receipt or attestation,
  // and each given is `skipped` and said to be unchecked in the service's words (core's), where this used to check a
  // receipt anyway and word an attestation its own way. --log without a receipt (the service has no such look-up)
  // still runs.
  const looksUp = response.verified;
  const checks: Record<string, string> = { ...response.checks };
  const details: Detail[] = [...(response.error_details ?? [])];
  const warnings = [...(response.warnings ?? [])];
  const fail = (check: string, detail: Omit<Detail, 'check'>) => {
    checks[check] = 'fail';
    details.push({ ...detail, check } as Detail);
  };

  if (looksUp && options.revocationList !== undefined) {
    const list = await readDocument(options.revocationList, io, options.timeoutMs);
    const result = verifyRevocationList(list, options.revocationKeys, {
      now: options.now,
      profile,
    });
    if (!result.ok) {
      // P457: core's message already names the revocation list (this read "revocation list: revocation list: …").
      fail('revocation', {
        code: errorCode(result.error.code, profile),
        message: result.error.message,
        retryable: false,
      });
    } else {
      // P457: the agent and every signer's kid, by core's rule, as POST /verify looks them up (D20, P201, P225: a
      // revoked key signs nothing that verifies), worded as the service words it (`<jurisdiction>: <id> was revoked
      // at <time>`); this looked the agent up alone and said "agent X is revoked in list N". P517: a bundle naming no
      // agent has its signers looked up, as the service does (SPEC.md: "agent_id or signer"), where this failed it
      // with E300 though nothing was revoked.
      const list = result.value.list;
      const decision = decideRevocation({
        tier: analysis.resolvedTier ?? 'routine',
        ids: [...(analysis.agentId === undefined ? [] : [analysis.agentId]), ...analysis.signerKids],
        list,
      });
      if (decision.status !== 'fail') {
        checks['revocation'] = 'pass';
        // P516, P572: an entry that reads as the agent or a signer's kid, worded as the service words it.
        for (const w of bundleReadAlikeRevocationWarnings(list, analysis))
          warnings.push(`${list.jurisdiction}: ${w}`);
      } else {
        fail('revocation', {
          code: errorCode(decision.error.code, profile),
          message: `${list.jurisdiction}: ${decision.error.message}`,
          retryable: decision.retryable,
        });
      }
    }
  }

  if (looksUp && options.attestationDocument !== undefined && options.attestationKeys.length === 0) {
    // As POST /verify without ATTESTATION_TRUSTED_KEYS: nothing here can pass it, so it is said to be unchecked; but
    // one the bundle or the clock contradicts fails (P437, core's in-hand check).
    const outcome = attestationOutcomeInHand(
      options.attestationDocument,
      analysis,
      { now: options.now, profile, ...maxAge },
      'jurisdiction_attestation not checked: no --attestation-key given',
    );
    checks['attestation'] = outcome.status;
    warnings.push(...outcome.warnings);
    if (outcome.error !== undefined) {
      const { check: _check, ...detail } = outcome.error;
      fail('attestation', detail);
    }
  } else if (looksUp && (options.attestation !== undefined || options.attestationDocument !== undefined)) {
    const input =
      options.attestation === undefined
        ? options.attestationDocument
        : await readDocument(options.attestation, io, options.timeoutMs);
    const record = input as Record<string, unknown> | null;
    const attestation =
      record !== null && typeof record === 'object' && typeof record['attestation'] === 'object'
        ? record['attestation']
        : input;
    // The attestation must be about this bundle: its RPR, its agent, its jurisdiction (D21).
    const result = verifyAttestation(attestation, options.attestationKeys, {
      now: options.now,
      profile,
      ...(analysis.rprHash === undefined ? {} : { expectedRprHash: analysis.rprHash }),
      ...(analysis.agentId === undefined ? {} : { expectedAgentId: analysis.agentId }),
      ...(analysis.jurisdiction === undefined ? {} : { expectedJurisdiction: analysis.jurisdiction }),
      ...maxAge,
    });
    if (result.ok) checks['attestation'] = 'pass';
    else {
      // P454: core's message already reads `attestation: …`, as the service gives it.
      fail('attestation', {
        code: errorCode(result.error.code, profile),
        message: result.error.message,
        retryable: false,
      });
    }
  }

  await validateWitnessFlags(options.witnesses);
  if (looksUp && hasReceipt(options)) {
    const input =
      options.receipt === undefined
        ? options.receiptDocument
        : await readDocument(options.receipt, io, options.timeoutMs);
    const record = input as Record<string, unknown> | null;
    const receipt =
      record !== null && typeof record === 'object' && typeof record['anchor_receipt'] === 'object'
        ? record['anchor_receipt']
        : input;
    if (analysis.bundleHash === undefined)
      throw new CliError('the bundle has no hash to match the receipt against');
    progress(io, 'checking the anchor receipt');
    const { verifyAnchorReceipt } = await import('@proto/clients');
    // P62: the receipt's secondary hash must be the bundle's own SHA3-256 hash when it names one.
    const secondary = analysis.bundleHashSecondary;
    const check = await verifyAnchorReceipt(receipt, analysis.bundleHash, {
      ...(secondary === undefined ? {} : { secondaryHash: secondary, warnWithoutSecondary: false }),
      ...(options.rpc === undefined ? {} : { evmRpc: options.rpc }),
      ...(options.esplora === undefined ? {} : { esplora: options.esplora }),
      ...(options.log === undefined
        ? {}
        : {
            logs: [
              {
                url: options.log,
                ...(options.logKeys.length > 0 ? { keys: options.logKeys } : {}),
                ...(options.witnesses.witnessKeys.length > 0
                  ? { witnesses: options.witnesses.witnessKeys }
                  : {}),
                ...(options.witnesses.witnessQuorum === undefined
                  ? {}
                  : { quorum: options.witnesses.witnessQuorum }),
              },
            ],
          }),
      timeoutMs: options.timeoutMs,
    });
    // P453: worded as the service words it (core's `anchorOutcome`): `anchor_receipt: …` throughout.
    const outcome = anchorOutcome(check, profile);
    warnings.push(...outcome.warnings);
    if (outcome.error !== undefined) {
      const { check: _check, ...detail } = outcome.error;
      fail('anchor', detail);
    } else checks['anchor'] = outcome.status;
  }

  // --log without --receipt: look the bundle up in that log and prove it against the log's signed checkpoint.
  if (options.log !== undefined && !hasReceipt(options)) {
    if (analysis.bundleHash === undefined) throw new CliError('the bundle has no hash to look up in the log');
    const outcome = await checkLogInclusion(
      analysis.bundleHash,
      options.log,
      options.logKeys,
      options.timeoutMs,
      io,
      options.witnesses,
    );
    if (outcome.witnessed !== undefined) warnings.push(`log_inclusion: ${outcome.witnessed}`);
    if (outcome.status === 'pass') checks['log_inclusion'] = 'pass';
    else {
      fail('log_inclusion', {
        code: errorCode(outcome.code, profile),
        message: `transparency log: ${outcome.message}`,
        retryable: outcome.retryable,
      });
    }
  }

  const failed = details.length > (response.error_details ?? []).length;
  // P454: `errors` holds the failures' messages, as D12 and every other reader have it (this held their codes).
  const errors = [
    ...(response.errors ?? []),
    ...details.slice((response.error_details ?? []).length).map((d) => d.message),
  ];
  const merged: VerifyResponse = {
    ...response,
    verified: response.verified && !failed,
    checks: checks as VerifyResponse['checks'],
    ...(errors.length > 0 ? { errors } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(details.length > 0 ? { error_details: details } : {}),
  };
  if (looksUp) return merged;
  return addExternalOutcomes(
    merged,
    unverifiedEvidenceOutcomes({
      revocation: options.revocationList !== undefined,
      receipt: hasReceipt(options),
      attestation: options.attestation !== undefined || options.attestationDocument !== undefined,
    }),
  );
}
