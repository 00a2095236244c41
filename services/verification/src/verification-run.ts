// One verification from body bytes to response, shared by POST /verify and POST /verify/batch: cache
// look-up, the worker pool, the I/O checks, the metrics. SPEC.md "POST /verify", D12, D20, issue 14.
import { performance } from 'node:perf_hooks';
import type { Verifier, VerifyResponse } from '@proto/core';
import { decodeCbor } from '@proto/service-kit';
import { type AnalysisFacts, analysisRequest, evidenceOf, factsOf, subjectOf } from './bundle-subject.ts';
import { uncoveredMembersOf, type VerificationCache, verificationCacheKey } from './cache.ts';
import type { ExternalChecks } from './external-checks.ts';
import { tierLabel, type VerificationMetrics } from './metrics.ts';
import type { VerifyPool } from './pool.ts';
import type { VerifiedBundleEvent } from './records/key-binding-feeder.ts';
import { checkVerifyRequest, parseJsonBody } from './verify-request.ts';
import type { VerifyTask } from './worker.ts';

/** A body as it arrived: parsing waits until we know whether the main thread needs the value. */
export interface WireBody {
  readonly format: 'json' | 'cbor';
  readonly bytes: Uint8Array;
}

export type VerificationOutcome =
  | { readonly kind: 'bad_request'; readonly message: string }
  | { readonly kind: 'verdict'; readonly response: VerifyResponse; readonly cache?: 'hit' | 'miss' };

export interface VerificationRunner {
  /** Throws PoolSaturatedError when the pool's queue is full (the caller decides: 503 or wait). */
  run(body: WireBody): Promise<VerificationOutcome>;
}

export interface VerificationRunnerOptions {
  readonly verifier: Verifier;
  readonly pool: VerifyPool;
  readonly cache: VerificationCache;
  readonly metrics: VerificationMetrics;
  readonly external: ExternalChecks;
  /** Called after each fresh verdict (not on cache hits): the /v2 key directory learns new keys (issue 15). */
  readonly onFreshVerdict?: ((event: VerifiedBundleEvent) => void) | undefined;
}

/**
 * True when `bytes` is the only view of its memory: then the worker gets it by transfer, no copy.
 * A view into a shared slab (small bodies, pooled buffers) is copied, as transferring it would
 * detach every other view.
 */
function ownsItsMemory(bytes: Uint8Array): boolean {
  const buffer = bytes.buffer;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
}

export function createVerificationRunner(options: VerificationRunnerOptions): VerificationRunner {
  const { verifier, pool, cache, metrics, external } = options;
  const settingsText = JSON.stringify(verifier.settings);

  const record = (response: VerifyResponse, facts: AnalysisFacts, startedAt: number, fresh: boolean) => {
    const tier = tierLabel(response.resolved_tier ?? facts.resolvedTier);
    metrics.latency.observe({ tier }, (performance.now() - startedAt) / 1000);
    metrics.requestsByTier.inc({ tier });
    metrics.verified.inc({
      result: response.verified ? 'verified' : 'rejected',
      version: response.version,
      tier,
    });
    for (const detail of response.error_details ?? []) metrics.errorsByCode.inc({ code: detail.code });
    if (fresh && facts.checkpointsVerified > 0) metrics.checkpointsVerified.inc(facts.checkpointsVerified);
  };

  const run = async (body: WireBody): Promise<VerificationOutcome> => {
    const startedAt = performance.now();
    let task: VerifyTask;
    let cacheKey: string | undefined;
    let value: unknown;
    if (cache.enabled) {
      // The cache key needs the value here; the worker then skips the checks already run.
      if (body.format === 'cbor') {
        try {
          value = decodeCbor(body.bytes);
        } catch (error) {
          return {
            kind: 'bad_request',
            message: `Request body is not valid CBOR: ${(error as Error).message}`,
          };
        }
      } else {
        const parsed = parseJsonBody(body.bytes);
        if (!parsed.ok) return { kind: 'bad_request', message: parsed.message };
        value = parsed.value;
      }
      const read = checkVerifyRequest(value);
      if (!read.ok) return { kind: 'bad_request', message: read.message };
      // The analysis ignores the anchor receipt and the attestation, so the key does too.
      cacheKey = verificationCacheKey(settingsText, analysisRequest(read.request));
      const hit = cacheKey === undefined ? undefined : cache.get(cacheKey);
      if (hit) {
        metrics.cacheHits.inc();
        // Time-dependent checks (key expiry and age, RPR and session expiry) run on every hit, and so
        // do revocation, attestation and anchor: only the analysis is cached, never a verdict (D20).
        // The key leaves out members no signature covers, so the warnings name this request's own.
        const finalized = verifier.finalize(
          { ...hit, uncoveredMembers: uncoveredMembersOf(read.request) },
          new Date(),
        );
        const response = await external.apply(finalized, subjectOf(hit), evidenceOf(read.request));
        record(response, factsOf(hit), startedAt, false);
        return { kind: 'verdict', response, cache: 'hit' };
      }
      metrics.cacheMisses.inc();
      // JSON bytes cost less to send and re-parse than the parsed tree costs to clone.
      task =
        body.format === 'json'
          ? {
              body: body.bytes,
              format: 'json',
              bodyChecked: true,
              wantAnalysis: cacheKey !== undefined,
              now: Date.now(),
            }
          : { request: read.request, wantAnalysis: cacheKey !== undefined, now: Date.now() };
    } else {
      // Cache off: nothing here needs the value, so JSON and CBOR alike are read in the worker.
      task = { body: body.bytes, format: body.format, wantAnalysis: false, now: Date.now() };
    }

    // The key directory reads the body after the answer, so with it the bytes are copied, not moved.
    const keepBody = options.onFreshVerdict !== undefined && value === undefined;
    const transfer =
      task.body !== undefined && !keepBody && ownsItsMemory(task.body)
        ? [task.body.buffer as ArrayBuffer]
        : [];
    const result = await pool.run(task, transfer);
    if (result.kind === 'bad_request') return result;
    if (cacheKey !== undefined && result.analysis) cache.set(cacheKey, result.analysis);
    // I/O checks after the CPU work; a revocation seen here evicts the entry just stored (D20).
    const response = await external.apply(result.response, result.subject, result.evidence);
    record(response, result.facts, startedAt, true);
    options.onFreshVerdict?.({ ...result.subject, verified: response.verified, body: value ?? body.bytes });
    return { kind: 'verdict', response, ...(cache.enabled ? { cache: 'miss' as const } : {}) };
  };

  return { run };
}
