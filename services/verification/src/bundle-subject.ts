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
  readonly signerKids: readonly string[];
  /** The RPR's jurisdiction: whose revocation list applies. */
  readonly jurisdiction?: string;
  /** What an attestation must name (`manifest.rpr_hash` in V2). */
  readonly rprHash?: string;
  /** What an anchor receipt must commit to (recomputed by the verifier, never read from the receipt). */
  readonly bundleHash?: string;
  /**
   * P62: the SHA3-256 hash of the same bytes; a receipt's bundle_hash_secondary must be this one. P74: only
   * an analysis made for such a receipt has it (`analyzeOptionsFor`, `analysisServes`).
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

/** P74: the analysis computes the bundle's SHA3-256 hash only for a receipt that names one. */
export function analyzeOptionsFor(evidence: SuppliedEvidence | undefined): AnalyzeOptions {
  return { bundleHashSecondary: receiptNamesSecondary(evidence?.anchor_receipt) };
}

/**
 * Whether a cached analysis has every hash this request's evidence is compared with (P74): one made for a
 * request without a receipt naming a bundle_hash_secondary lacks the bundle's own, so such a request is
 * analysed afresh rather than having its receipt checked without it. An analysis with no bundle hash
 * serves every request (the anchor check is skipped then, whatever the analysis).
 */
export function analysisServes(analysis: BundleAnalysis, evidence: SuppliedEvidence | undefined): boolean {
  return (
    analysis.bundleHash === undefined ||
    analysis.bundleHashSecondary !== undefined ||
    !receiptNamesSecondary(evidence?.anchor_receipt)
  );
}

/**
 * Whether the main thread's I/O checks add anything to a verdict (D19–D21; external-checks.ts `apply`):
 * a revocation look-up for a bundle naming an agent when revocation sources are configured, and the
 * anchor receipt or attestation the caller supplied. When not, the worker's verdict is the answer (P68).
 */
export function externalChecksApply(
  revocationConfigured: boolean,
  subject: BundleSubject,
  evidence: SuppliedEvidence | undefined,
): boolean {
  return evidence !== undefined || (revocationConfigured && subject.agentId !== undefined);
}

/** The request without the evidence: the analysis does not depend on it, so neither does the cache key. */
export function analysisRequest(request: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { anchor_receipt: _receipt, jurisdiction_attestation: _attestation, ...rest } = request;
  return rest;
}
