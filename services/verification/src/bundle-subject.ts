// What the main thread needs from an analysis and a request to run the I/O checks after the worker's
// verdict: who the bundle is about, and the evidence the caller supplied. DECISIONS D12, D19–D21.
import {
  type AnalyzeOptions,
  type BundleAnalysis,
  receiptNamesSecondary,
  type SecurityTier,
} from '@proto/core/verifier';

/** The facts of a bundle the revocation, attestation and anchor checks look at (plain data, clonable). */
export interface BundleSubject {
  readonly version: string;
  readonly resolvedTier?: SecurityTier;
  readonly agentId?: string;
  /** V2: the RPR's human_id (the key directory's subject for the principal's keys, P282). */
  readonly humanId?: string;
  readonly signerKids: readonly string[];
  /** The RPR's jurisdiction: whose revocation list applies. */
  readonly jurisdiction?: string;
  /** What an attestation must name (`manifest.rpr_hash` in V2). */
  readonly rprHash?: string;
  /**
   * What an anchor receipt must commit to (recomputed by the verifier, never read from the receipt). P123: a
   * V2 analysis has it only when made for a receipt or for the key directory (`analyzeOptionsFor`).
   */
  readonly bundleHash?: string;
  /**
   * P62: the SHA3-256 hash of the same bytes; a receipt's bundle_hash_secondary must be this one. P74: only
   * an analysis made for such a receipt has it (`analyzeOptionsFor`); the cache keys an analysis by the exact
   * request bytes, receipt included (P235), so a hit has every hash its own receipt is compared with.
   */
  readonly bundleHashSecondary?: string;
}

/** What the metrics record of an analysis (built here once for the worker and the cache-hit path). */
export interface AnalysisFacts {
  readonly version: string;
  readonly resolvedTier?: string;
  readonly checkpointsVerified: number;
}

export function factsOf(analysis: BundleAnalysis): AnalysisFacts {
  return {
    version: analysis.version,
    ...(analysis.resolvedTier === undefined ? {} : { resolvedTier: analysis.resolvedTier }),
    checkpointsVerified: analysis.checkpointsVerified,
  };
}

/** Evidence a /verify request may carry beside the bundle (SPEC.md "POST /verify"). */
export interface SuppliedEvidence {
  readonly anchor_receipt?: unknown;
  readonly jurisdiction_attestation?: unknown;
}

export function subjectOf(analysis: BundleAnalysis): BundleSubject {
  return {
    version: analysis.version,
    signerKids: analysis.signerKids,
    ...(analysis.resolvedTier === undefined ? {} : { resolvedTier: analysis.resolvedTier }),
    ...(analysis.agentId === undefined ? {} : { agentId: analysis.agentId }),
    ...(analysis.humanId === undefined ? {} : { humanId: analysis.humanId }),
    ...(analysis.jurisdiction === undefined ? {} : { jurisdiction: analysis.jurisdiction }),
    ...(analysis.rprHash === undefined ? {} : { rprHash: analysis.rprHash }),
    ...(analysis.bundleHash === undefined ? {} : { bundleHash: analysis.bundleHash }),
    ...(analysis.bundleHashSecondary === undefined
      ? {}
      : { bundleHashSecondary: analysis.bundleHashSecondary }),
  };
}

/** The request's evidence; `null` counts as not supplied. Undefined when there is none. */
export function evidenceOf(request: Readonly<Record<string, unknown>>): SuppliedEvidence | undefined {
  const receipt = request['anchor_receipt'];
  const attestation = request['jurisdiction_attestation'];
  const hasReceipt = receipt !== undefined && receipt !== null;
  const hasAttestation = attestation !== undefined && attestation !== null;
  if (!hasReceipt && !hasAttestation) return undefined;
  return {
    ...(hasReceipt ? { anchor_receipt: receipt } : {}),
    ...(hasAttestation ? { jurisdiction_attestation: attestation } : {}),
  };
}

/**
 * What the analysis hashes beyond the verdict's needs: the bundle's SHA-256 hash for any anchor receipt (P123)
 * or for the key directory's evidence (`forKeys`, records/passport-evidence.ts); its SHA3-256 hash too only for a
 * receipt that names one (P74).
 */
export function analyzeOptionsFor(evidence: SuppliedEvidence | undefined, forKeys = false): AnalyzeOptions {
  const receipt = evidence?.anchor_receipt;
  return {
    bundleHash: receipt !== undefined || forKeys,
    bundleHashSecondary: receiptNamesSecondary(receipt),
  };
}

/** A V2 analysis past its schema check: the kind that has a whole-bundle hash when one is asked for (P123). */
export function passedV2Schema(analysis: BundleAnalysis): boolean {
  return analysis.version === '2.0' && analysis.checks.schema === 'pass';
}

/**
 * Whether the main thread's I/O checks add anything to a verdict (D19–D21; external-checks.ts `apply`):
 * a revocation look-up when revocation sources are configured (P517: also for a bundle naming no agent, whose
 * signers are looked up, or whose answer says the look-up was not made), and the anchor receipt or attestation the
 * caller supplied. When not, the worker's verdict is the answer (P68).
 */
export function externalChecksApply(
  revocationConfigured: boolean,
  _subject: BundleSubject,
  evidence: SuppliedEvidence | undefined,
): boolean {
  return evidence !== undefined || revocationConfigured;
}

/** The request without the evidence: the analysis does not depend on it, so neither does the cache key. */
export function analysisRequest(request: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { anchor_receipt: _receipt, jurisdiction_attestation: _attestation, ...rest } = request;
  return rest;
}
