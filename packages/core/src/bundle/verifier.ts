// createVerifier: validates the configuration once, then verifies requests; analyze/finalize split the
// cacheable (time-independent) work from the clock-dependent checks. SPEC.md POST /verify; DECISIONS D11, D12.
import { ok, type Result } from '../result.ts';
import { attestationOutcomeInHand } from './attestation-in-request.ts';
import { detectBundleVersion } from './detect.ts';
import { unverifiedEvidenceOutcomes } from './evidence-outcomes.ts';
import { isRecord, prop } from './json.ts';
import { Ledger } from './ledger.ts';
import { receiptAnalyzeOptions, receiptOutcomeInHand } from './receipt-in-request.ts';
import { resolveVerifierSettings, type VerifierRuntime } from './settings.ts';
import type {
  AnalysisFinding,
  AnalyzeOptions,
  BundleAnalysis,
  FindingCheck,
  Verifier,
  VerifierOptions,
  VerifyResponse,
} from './types.ts';
import { splitUncoveredV2 } from './uncovered.ts';
import { analyzeV1 } from './v1/pipeline.ts';
import { analyzeV2 } from './v2/pipeline.ts';
import { addExternalOutcomes, assembleVerdict } from './verdict.ts';

function failedAnalysis(
  version: string,
  check: FindingCheck,
  finding: Omit<AnalysisFinding, 'check'>,
): BundleAnalysis {
  const ledger = new Ledger();
  ledger.fail(check, finding.code, finding.message);
  return Object.freeze({
    version,
    signerKids: Object.freeze([]),
    checkpointsVerified: 0,
    checks: Object.freeze(check === 'schema' ? { schema: 'fail' as const } : {}),
    findings: Object.freeze([...ledger.findings]),
    warnings: Object.freeze([]),
    timeDependent: Object.freeze({ signingKeys: Object.freeze([]) }),
  });
}

function internalError(error: unknown): AnalysisFinding {
  const text = error instanceof Error ? error.message : String(error);
  return {
    check: 'request',
    code: 'INTERNAL_ERROR',
    message: `Internal error while verifying: ${text.slice(0, 200)}`,
  };
}

/** `verify`'s word on a receipt nothing in hand contradicts: only its chain or log could pass it (P386). */
const UNCHECKED_RECEIPT =
  'anchor_receipt not checked: its hashes and path hold, but only its chain or log can confirm it, and verify() reads neither';

/** `verify`'s word on an attestation nothing in hand contradicts: only its issuer's keys could pass it (P435). */
const UNCHECKED_ATTESTATION =
  "jurisdiction_attestation not checked: it names this bundle's RPR, agent and jurisdiction and is in its time window, but only its issuer's keys can confirm it, and verify() holds none";

/** Routes a request `{signed_bundle, public_key_b64?}` to the V1 or V2 pipeline (D11). */
function analyzeRequest(
  runtime: VerifierRuntime,
  request: unknown,
  options: AnalyzeOptions | undefined,
): BundleAnalysis {
  const secondary = options?.bundleHashSecondary === true;
  const wanted = secondary ? 'both' : options?.bundleHash === true ? 'primary' : 'none';
  if (!isRecord(request) || prop(request, 'signed_bundle') === undefined) {
    return failedAnalysis('unknown', 'request', {
      code: 'BUNDLE_SCHEMA_INVALID',
      // P454: the service's words (and upstream's, docs/protocol.md), so one request reads alike everywhere.
      message: 'Missing signed_bundle in body',
    });
  }
  const requestKey = prop(request, 'public_key_b64');
  if (requestKey !== undefined && typeof requestKey !== 'string') {
    return failedAnalysis('unknown', 'request', {
      code: 'BUNDLE_SCHEMA_INVALID',
      message: 'public_key_b64 must be a string when present',
    });
  }
  const signed = prop(request, 'signed_bundle');
  switch (detectBundleVersion(signed)) {
    case '1.0':
      return analyzeV1(runtime, signed, requestKey, secondary);
    case '2.0': {
      // Members no signature covers never reach the checks (issue 12): the verdict and the bundle
      // hash are those of the covered form; finalize names what was set aside.
      const view = splitUncoveredV2(signed);
      const analysis = analyzeV2(runtime, view.covered, requestKey !== undefined, wanted);
      const uncoveredMembers = view.members;
      return uncoveredMembers === undefined ? analysis : Object.freeze({ ...analysis, uncoveredMembers });
    }
    case 'legacy-v2':
      return failedAnalysis('legacy-v2', 'version', {
        code: 'VERSION_UNSUPPORTED',
        message:
          'Legacy root-tooling "V2" format (top-level dcp_version/bundle_manifest, composite binding or domain_sep; PROTOCOL §6.11) is not supported: it is not the SDK V2 Signed Bundle format',
      });
    case 'unknown':
      return failedAnalysis('unknown', 'schema', {
        code: 'BUNDLE_SCHEMA_INVALID',
        message:
          'signed_bundle is not a recognised Signed Bundle (expected {bundle, signature} in the V1 or V2 format)',
      });
  }
}

/**
 * Builds a verifier from options (validated: profile, mode, policy by schema and values, numbers,
 * backend, clock). An invalid option is an error result with a message naming it; never throws.
 */
export function createVerifier(options: VerifierOptions): Result<Verifier> {
  const resolved = resolveVerifierSettings(options);
  if (!resolved.ok) return resolved;
  const runtime = resolved.value;

  const analyze = (request: unknown, options?: AnalyzeOptions): BundleAnalysis => {
    try {
      return analyzeRequest(runtime, request, options);
    } catch (error) {
      // Last resort: every pipeline reads untrusted input defensively, so this is a bug if reached.
      const f = internalError(error);
      return failedAnalysis('unknown', f.check, f);
    }
  };
  const finalize = (analysis: BundleAnalysis, now: Date): VerifyResponse => {
    try {
      return assembleVerdict(analysis, now, runtime.settings, runtime.profile);
    } catch (error) {
      const f = internalError(error);
      return assembleVerdict(
        failedAnalysis('unknown', f.check, f),
        new Date(0),
        runtime.settings,
        runtime.profile,
      );
    }
  };
  const verify = (request: unknown): VerifyResponse => {
    let now: Date;
    try {
      now = runtime.clock();
    } catch {
      now = new Date(Number.NaN);
    }
    const read = (member: string) => {
      const value = isRecord(request) ? prop(request, member) : undefined;
      return value === null ? undefined : value;
    };
    const receipt = read('anchor_receipt');
    const attestation = read('jurisdiction_attestation');
    if (receipt === undefined && attestation === undefined) return finalize(analyze(request), now);
    // P386: a receipt the bundle's own hashes contradict fails here too, as POST /verify and `proto verify` fail it.
    const analysis = analyze(request, receipt === undefined ? undefined : receiptAnalyzeOptions(receipt));
    const response = finalize(analysis, now);
    // P454: the evidence of a bundle that is not verified is skipped and said to be, as the service says it.
    if (!response.verified) {
      const evidence = { receipt: receipt !== undefined, attestation: attestation !== undefined };
      return addExternalOutcomes(response, unverifiedEvidenceOutcomes(evidence));
    }
    const outcomes = [];
    if (receipt !== undefined)
      outcomes.push(receiptOutcomeInHand(receipt, analysis, runtime.profile, UNCHECKED_RECEIPT));
    // P435: so does an attestation the bundle or the clock contradicts, as POST /verify with no trusted keys does.
    if (attestation !== undefined) {
      outcomes.push(
        attestationOutcomeInHand(
          attestation,
          analysis,
          // P452: the operator's maximum age of an attestation without expires_at, as the service's.
          { now, profile: runtime.profile, maxAgeMs: runtime.settings.attestationMaxAgeDays * 86_400_000 },
          UNCHECKED_ATTESTATION,
        ),
      );
    }
    return addExternalOutcomes(response, outcomes);
  };
  return ok(
    Object.freeze({ profile: runtime.profile, settings: runtime.settings, verify, analyze, finalize }),
  );
}
