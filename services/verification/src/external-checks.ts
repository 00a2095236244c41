// The checks that need I/O or the operator's trust material, run on the main thread after the worker's
// verdict and merged into it: revocation (D20), jurisdiction attestation (D21), anchor receipt (D19); D12.
import {
  type AnchorCheck,
  addExternalOutcomes,
  anchorOutcome as anchorOutcomeOf,
  attestationOutcomeInHand,
  type ErrorDetail,
  type ErrorName,
  type ExternalCheckName,
  type ExternalOutcome,
  errorCode,
  errorDefinition,
  failsClosed,
  type ProtocolProfile,
  prepareReceiptCheck,
  receiptNamesSecondary,
  type SecurityTier,
  type TrustedKey,
  tierFloorForMode,
  unverifiedEvidenceOutcomes,
  type VerificationMode,
  type VerifyResponse,
  verifyAttestation,
} from '@proto/core';
import {
  type AnchorVerificationSources,
  createRevocationChecker,
  type RevocationChecker,
  type RevocationWatermarks,
  verifyAnchorReceipt,
} from '@proto/service-kit';
import { createAnchorCheckCache } from './anchor-cache.ts';
import { type BundleSubject, externalChecksApply, type SuppliedEvidence } from './bundle-subject.ts';
import type { VerificationConfig } from './config.ts';

/** One check's contribution to the response; core's assembler merges it (issue 13 item 2). */
type Outcome = ExternalOutcome;

export interface ExternalChecksOptions {
  readonly config: VerificationConfig;
  readonly profile: ProtocolProfile;
  /** VERIFIER_MODE: a V1 bundle has no resolved tier, so the operator's floor decides fail-closed (D10, D20). */
  readonly mode: VerificationMode;
  /** Called once for every revocation seen for the first time (the cache drops that agent's analyses). */
  readonly onNewRevocation: (agentId: string) => void;
  readonly clock?: () => Date;
  readonly log?: { warn(obj: object, msg: string): void };
  /** Highest list_number per revocation source, kept in the store (issue 12 row k). */
  readonly revocationWatermarks?: RevocationWatermarks;
  /** A revocation source's list was fetched and accepted (metrics). */
  readonly onRevocationFetched?: (jurisdiction: string) => void;
  /** An anchor receipt was looked up at its sources (not answered from the cache): metrics (P154). */
  readonly onAnchorLookup?: (result: AnchorCheck) => void;
}

export interface ExternalChecks {
  /** The revocation checker, when REVOCATION_SOURCES names at least one jurisdiction. */
  readonly revocation: RevocationChecker | undefined;
  /** Sources anchor receipts are checked against, when any is configured. */
  readonly anchorSources: AnchorVerificationSources | undefined;
  /** Runs the checks this request calls for and merges them into `response`; never throws. */
  apply(
    response: VerifyResponse,
    subject: BundleSubject,
    evidence: SuppliedEvidence | undefined,
  ): Promise<VerifyResponse>;
}

/** The operator's anchor sources from the ANCHOR_VERIFY_* variables; undefined when none is set. */
export function anchorSourcesOf(config: VerificationConfig): AnchorVerificationSources | undefined {
  const evm = config.ANCHOR_VERIFY_ETH_RPC_URL;
  const esplora = config.ANCHOR_VERIFY_ESPLORA_URL;
  const logs = config.ANCHOR_VERIFY_LOG_URL;
  if (evm === undefined && esplora === undefined && logs === undefined) return undefined;
  return {
    ...(evm === undefined ? {} : { evmRpc: evm }),
    ...(esplora === undefined ? {} : { esplora }),
    // Never `true`: a service must not fetch the URLs its callers put in receipts.
    ...(logs === undefined ? {} : { logs }),
    minConfirmations: config.ANCHOR_VERIFY_MIN_CONFIRMATIONS,
    timeoutMs: config.ANCHOR_VERIFY_TIMEOUT_MS,
    maxResponseBytes: config.ANCHOR_VERIFY_MAX_RESPONSE_BYTES,
  };
}

function detail(
  check: ExternalCheckName,
  name: ErrorName,
  message: string,
  profile: ProtocolProfile,
  retryable = errorDefinition(name).retryable,
): ErrorDetail {
  return { code: errorCode(name, profile), check, message, retryable };
}

/** The checks `apply` would run, each `skipped` with core's warning, for a bundle whose own verdict is false (P454). */
function unverifiedOutcomes(
  revocation: RevocationChecker | undefined,
  evidence: SuppliedEvidence | undefined,
): Outcome[] {
  return unverifiedEvidenceOutcomes({
    revocation: revocation !== undefined,
    receipt: evidence?.anchor_receipt !== undefined,
    attestation: evidence?.jurisdiction_attestation !== undefined,
  });
}

export function createExternalChecks(options: ExternalChecksOptions): ExternalChecks {
  const { config, profile } = options;
  const clock = options.clock ?? (() => new Date());
  const attestationKeys: Readonly<Record<string, readonly TrustedKey[]>> = config.ATTESTATION_TRUSTED_KEYS;
  const attestationConfigured = Object.keys(attestationKeys).length > 0;
  const anchorSources = anchorSourcesOf(config);
  const anchorCache = createAnchorCheckCache({
    maxEntries: config.ANCHOR_VERIFY_CACHE_MAX_ENTRIES,
    ttlMs: config.ANCHOR_VERIFY_CACHE_TTL_MS,
    retryTtlMs: config.ANCHOR_VERIFY_CACHE_RETRY_TTL_MS,
    finalConfirmations: config.ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS,
  });
  const attestationMaxAgeMs = config.ATTESTATION_MAX_AGE_DAYS * 86_400_000;
  const revocation =
    Object.keys(config.REVOCATION_SOURCES).length === 0
      ? undefined
      : createRevocationChecker({
          sources: config.REVOCATION_SOURCES,
          unlistedJurisdictions: config.REVOCATION_UNLISTED_JURISDICTIONS,
          ...(options.revocationWatermarks === undefined ? {} : { watermarks: options.revocationWatermarks }),
          timeoutMs: config.REVOCATION_FETCH_TIMEOUT_MS,
          clock,
          profile,
          onNewRevocation: (agentId) => options.onNewRevocation(agentId),
          ...(options.onRevocationFetched ? { onFetched: options.onRevocationFetched } : {}),
          ...(options.log === undefined ? {} : { log: options.log }),
        });

  const tierOf = (subject: BundleSubject): SecurityTier =>
    subject.resolvedTier ?? tierFloorForMode(options.mode);

  async function checkRevocation(checker: RevocationChecker, subject: BundleSubject): Promise<Outcome> {
    const tier = tierOf(subject);
    try {
      const result = await checker.check({
        jurisdiction: subject.jurisdiction,
        agentId: subject.agentId,
        signerIds: subject.signerKids,
        tier,
      });
      const warnings = [...(result.warnings ?? (result.warning === undefined ? [] : [result.warning]))];
      if (result.status !== 'fail') return { check: 'revocation', status: result.status, warnings };
      // A failing result carries its code, message and retryability by type (P209).
      return {
        check: 'revocation',
        status: 'fail',
        error: {
          code: result.code,
          check: 'revocation',
          message: result.message,
          retryable: result.retryable,
        },
        warnings,
      };
    } catch (error) {
      // The checker does not throw; should it, the status is unknown: D20's fail-closed rule applies.
      const message = `revocation status unknown: ${(error as Error).message}`;
      return failsClosed(tier)
        ? {
            check: 'revocation',
            status: 'fail',
            error: detail('revocation', 'CIRCUIT_OPEN', message, profile),
            warnings: [],
          }
        : { check: 'revocation', status: 'skipped', warnings: [message] };
    }
  }

  function checkAttestation(attestation: unknown, subject: BundleSubject): Outcome {
    if (!attestationConfigured) {
      // P436: with no issuer keys nothing can pass it, but what the bundle and the clock contradict fails it, as
      // core's `verify(request)` and `proto verify` without --attestation-key fail it (core's in-hand check).
      return attestationOutcomeInHand(
        attestation,
        subject,
        { now: clock(), profile, maxAgeMs: attestationMaxAgeMs },
        'jurisdiction_attestation not checked: no trusted attestation keys are configured',
      );
    }
    if (subject.rprHash === undefined) {
      return {
        check: 'attestation',
        status: 'skipped',
        warnings: ['jurisdiction_attestation not checked: the bundle has no readable RPR'],
      };
    }
    const jurisdiction = subject.jurisdiction;
    if (jurisdiction === undefined) {
      return {
        check: 'attestation',
        status: 'skipped',
        warnings: ["jurisdiction_attestation not checked: the bundle's RPR names no jurisdiction"],
      };
    }
    // Issue 12 item 7: the RPR's jurisdiction, never the attestation's own claim, picks the trusted
    // issuers, and the attestation must name that jurisdiction.
    const keys = Object.hasOwn(attestationKeys, jurisdiction) ? (attestationKeys[jurisdiction] ?? []) : [];
    const verified = verifyAttestation(attestation, keys, {
      now: clock(),
      expectedRprHash: subject.rprHash,
      expectedJurisdiction: jurisdiction,
      ...(subject.agentId === undefined ? {} : { expectedAgentId: subject.agentId }),
      maxAgeMs: attestationMaxAgeMs,
      profile,
    });
    if (verified.ok) return { check: 'attestation', status: 'pass', warnings: [] };
    return {
      check: 'attestation',
      status: 'fail',
      error: detail('attestation', verified.error.code, verified.error.message, profile),
      warnings: [],
    };
  }

  /**
   * P380: with no anchor sources, what needs no chain read is still checked, as `proto verify --receipt` checks it
   * (core's `prepareReceiptCheck`: the receipt's shape, its bundle hash against the one recomputed here, a receipt
   * reporting a failed anchor, its Merkle path to the batch root). A receipt for another bundle is a `fail` whether
   * or not a chain could be read (D19: "recomputes the hash"); one that holds is `skipped`, as before.
   */
  function checkAnchorLocally(receipt: unknown, subject: BundleSubject): Outcome {
    const unchecked: Outcome = {
      check: 'anchor',
      status: 'skipped',
      warnings: ['anchor_receipt not checked: no anchor sources are configured'],
    };
    if (subject.bundleHash === undefined) return unchecked;
    const secondary = receiptNamesSecondary(receipt) ? subject.bundleHashSecondary : undefined;
    const prepared = prepareReceiptCheck(receipt, subject.bundleHash, secondary, false);
    return prepared.ok ? unchecked : anchorOutcome(prepared.error);
  }

  async function checkAnchor(receipt: unknown, subject: BundleSubject): Promise<Outcome> {
    if (anchorSources === undefined) return checkAnchorLocally(receipt, subject);
    if (subject.bundleHash === undefined) {
      return {
        check: 'anchor',
        status: 'skipped',
        warnings: ['anchor_receipt not checked: the bundle hash could not be computed'],
      };
    }
    // The hash is the verifier's own (analysis.bundleHash); the receipt's claim is only compared with it.
    // One look-up per receipt and bundle hash per TTL, shared by concurrent requests (issue 12 item 6).
    // P62: a receipt's secondary hash is compared with the bundle's own SHA3-256 hash, like bundle_hash.
    const bundleHash = subject.bundleHash;
    // P74: passed only for a receipt naming one, so the result (and its cache key) never depends on whether
    // this analysis happened to compute it; one that names it and meets an analysis without it is not checked
    // at all, as checking only its bundle_hash would pass a wrong secondary.
    const needsSecondary = receiptNamesSecondary(receipt);
    const secondary = needsSecondary ? subject.bundleHashSecondary : undefined;
    if (needsSecondary && secondary === undefined) {
      return {
        check: 'anchor',
        status: 'skipped',
        warnings: ["anchor_receipt not checked: the bundle's SHA3-256 hash was not computed"],
      };
    }
    const sources =
      secondary === undefined
        ? anchorSources
        : { ...anchorSources, secondaryHash: secondary, warnWithoutSecondary: false };
    const result = await anchorCache.check(receipt, bundleHash, secondary, () =>
      verifyAnchorReceipt(receipt, bundleHash, sources).then((looked) => {
        // P154: an upstream that cannot be read (down, too slow, too big, redirecting, confused) is the
        // operator's to see, not only the caller's warning.
        options.onAnchorLookup?.(looked);
        if (looked.status === 'skipped' && looked.retryable) {
          options.log?.warn({ kind: looked.kind, reason: looked.message }, 'anchor source unavailable');
        }
        return looked;
      }),
    );
    return anchorOutcome(result);
  }

  /** The outcome of a receipt's check, worded as every reader words it (core's `anchorOutcome`, P453). */
  function anchorOutcome(result: AnchorCheck): Outcome {
    return anchorOutcomeOf(result, profile);
  }

  return {
    revocation,
    anchorSources,
    async apply(response, subject, evidence) {
      // Nothing to look up (the worker answers such verdicts itself: P68).
      if (!externalChecksApply(revocation !== undefined, subject, evidence)) return response;
      // Issue 12 item 6: a bundle that is not verified costs the operator no I/O and no trust-material
      // look-up; the checks it asked for are reported `skipped`, saying why.
      if (!response.verified) return addExternalOutcomes(response, unverifiedOutcomes(revocation, evidence));
      // In D12's check order, so errors and warnings read in the order of `checks`.
      const pending: Promise<Outcome>[] = [];
      if (revocation !== undefined) pending.push(checkRevocation(revocation, subject));
      if (evidence?.anchor_receipt !== undefined) {
        pending.push(checkAnchor(evidence.anchor_receipt, subject));
      }
      if (evidence?.jurisdiction_attestation !== undefined) {
        pending.push(Promise.resolve(checkAttestation(evidence.jurisdiction_attestation, subject)));
      }
      if (pending.length === 0) return response;
      return addExternalOutcomes(response, await Promise.all(pending));
    },
  };
}
