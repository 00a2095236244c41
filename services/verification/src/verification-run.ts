// One verification from body bytes to response, shared by POST /verify and POST /verify/batch: cache
// look-up, the worker pool, the I/O checks, the metrics. SPEC.md "POST /verify", D12, D20, issue 14.
import { performance } from 'node:perf_hooks';
import type { BundleAnalysis, Verifier, VerifyResponse } from '@proto/core';
import type { PassportKeys } from '@proto/store';
import type { AnswerFormat, AnswerSummary, WiredAnswer } from './answer-wire.ts';
import { BodyMemo } from './body-memo.ts';
import { ownsItsMemory } from './body-reader.ts';
import {
  type AnalysisFacts,
  type BundleSubject,
  factsOf,
  type SuppliedEvidence,
  subjectOf,
} from './bundle-subject.ts';
import { type VerificationCache, verificationCacheKey } from './cache.ts';
import { directoryWarningsApply, withWarnings } from './directory-warnings.ts';
import type { ExternalChecks } from './external-checks.ts';
import { foreignPassportWarnings, wiredWithWarnings } from './foreign-passport.ts';
import { tierLabel, type VerificationMetrics } from './metrics.ts';
import type { VerifyPool } from './pool.ts';
import type { BundleParties } from './records/bundle-key-bindings.ts';
import type { KeyDirectoryFeed, KnownPassport } from './records/key-binding-feeder.ts';
import type { ForeignPassport } from './records/party-continuity.ts';
import { retainedBytes } from './retained-bytes.ts';
import { type RetiredKeyLookup, withRetiredKeyWarnings } from './retired-keys.ts';
import type { VerifyTask, VerifyTaskResult } from './worker.ts';

/** A body as it arrived: parsing waits until we know whether the main thread needs the value. */
export interface WireBody {
  readonly format: 'json' | 'cbor';
  readonly bytes: Uint8Array;
}

export type VerificationOutcome =
  | { readonly kind: 'bad_request'; readonly message: string }
  | { readonly kind: 'verdict'; readonly response: VerifyResponse; readonly cache?: 'hit' | 'miss' }
  /** The final answer as the worker wrote it, in the format asked for (P68): send the bytes as they are. */
  | { readonly kind: 'answer'; readonly answer: WiredAnswer; readonly cache?: 'miss' };

export interface VerificationRunner {
  /**
   * Throws PoolSaturatedError when the pool's queue is full (the caller decides: 503 or wait).
   * `answer`: the wire format the caller will send; the outcome may then be the answer's bytes.
   */
  run(body: WireBody, answer?: AnswerFormat, dispatch?: TaskDispatch): Promise<VerificationOutcome>;
}

/**
 * How a bundle's task reaches the pool: alone (`pool.run`), or gathered into a group (P109). `bytes`: the
 * body's size, which bounds a group.
 */
export type TaskDispatch = (
  task: VerifyTask,
  transfer: readonly ArrayBuffer[],
  bytes: number,
) => Promise<VerifyTaskResult>;

/**
 * A group is sent once its bodies reach this many bytes (the one crossing it included): eight routine-10
 * bundles (46 KB each) fit, maximum-60 ones (~350 KB) go two at a time, so one group's work, which the
 * first answer of a batch and a /verify behind the batch may wait for, stays that of a few bundles (P109).
 */
export const GROUP_MAX_BYTES = 512 * 1024;

/**
 * Gathers the tasks dispatched in one turn of the event loop (up to `size` bundles or GROUP_MAX_BYTES)
 * into one pool task each. A group that the pool refuses or loses rejects every bundle of it; a bundle
 * whose verification threw rejects alone.
 */
export function taskGrouper(pool: Pick<VerifyPool, 'run' | 'runGroup'>, size: number): TaskDispatch {
  interface Waiting {
    readonly task: VerifyTask;
    readonly transfer: readonly ArrayBuffer[];
    readonly resolve: (result: VerifyTaskResult) => void;
    readonly reject: (error: unknown) => void;
  }
  let gathering: Waiting[] = [];
  let gatheredBytes = 0;
  const send = () => {
    const group = gathering;
    gathering = [];
    gatheredBytes = 0;
    if (group.length === 0) return;
    if (group.length === 1) {
      const only = group[0]!;
      pool.run(only.task, only.transfer).then(only.resolve, only.reject);
      return;
    }
    pool
      .runGroup(
        group.map((w) => w.task),
        group.flatMap((w) => w.transfer),
      )
      .then(
        (results) => {
          group.forEach((waiting, i) => {
            const result = results[i];
            if (result === undefined || result.kind === 'failed') {
              waiting.reject(new Error(result?.message ?? 'no result for this bundle'));
            } else waiting.resolve(result);
          });
        },
        (error: unknown) => {
          for (const waiting of group) waiting.reject(error);
        },
      );
  };
  return (task, transfer, bytes) =>
    new Promise<VerifyTaskResult>((resolve, reject) => {
      gathering.push({ task, transfer, resolve, reject });
      gatheredBytes += bytes;
      if (gathering.length >= size || gatheredBytes >= GROUP_MAX_BYTES) send();
      else if (gathering.length === 1) queueMicrotask(send);
    });
}

export interface VerificationRunnerOptions {
  readonly verifier: Verifier;
  readonly pool: VerifyPool;
  readonly cache: VerificationCache;
  readonly metrics: VerificationMetrics;
  readonly external: ExternalChecks;
  /**
   * The /v2 key directory's feed when the records are mounted (read per request: the records plugin may
   * register after the routes). Settles true once the bindings are stored. Issue 15 item 1.
   */
  readonly keyDirectory?: () => KeyDirectoryFeed | undefined;
  /**
   * The key directory's retired bindings when the records are mounted (read per request, as `keyDirectory`): a
   * verified V2 bundle signed by a retired key gets a warning (P282).
   */
  readonly retiredKeys?: () => RetiredKeyLookup | undefined;
  /** Where a directory that cannot answer is reported. */
  readonly log?: { warn(obj: object, msg: string): void };
}

export type { KeyDirectoryFeed };

/** What the metrics read of a response the main thread holds as an object. */
function summaryOf(response: VerifyResponse): AnswerSummary {
  return {
    verified: response.verified,
    version: response.version,
    ...(response.resolved_tier === undefined ? {} : { resolvedTier: response.resolved_tier }),
    errorCodes: (response.error_details ?? []).map((d) => d.code),
  };
}

/** The passport a verdict hands the key directory: its keys, or only the evidence of keys handed over lately (P229). */
function handedPassport(result: {
  readonly passport?: PassportKeys | undefined;
  readonly passportEvidence?: string;
}): PassportKeys | KnownPassport | undefined {
  if (result.passport !== undefined) return result.passport;
  return result.passportEvidence === undefined ? undefined : { evidence: result.passportEvidence };
}

export function createVerificationRunner(options: VerificationRunnerOptions): VerificationRunner {
  const { verifier, pool, cache, metrics, external } = options;
  const revocationConfigured = external.revocation !== undefined;
  const settingsText = JSON.stringify(verifier.settings);
  // The bindings a cached analysis proves that the directory does not hold yet (fed from hits until it
  // does). Keyed by the analysis object itself: an entry the cache drops takes its bindings with it.
  // Removed once stored: a passport's public keys (~10 KB for a standard bundle) would otherwise stay as
  // long as the analysis, 100 MB and more with the cache full (P81).
  // The cache counts them against VERIFICATION_CACHE_MAX_BYTES until stored: their size is the signer's
  // choice, and a false verdict's are never stored.
  const unstoredBindings = new WeakMap<object, { passport: PassportKeys; cacheKey: string }>();
  // P555: whom a cached analysis's bundle names and who signed it, by which a hit asks the directory (P501, P503).
  const partiesOf = new WeakMap<object, BundleParties>();
  const knownBodies = new BodyMemo(cache.maxEntries, cache.maxBytes);

  const feedDirectory = (
    feed: KeyDirectoryFeed,
    response: Pick<VerifyResponse, 'verified' | 'version'>,
    passport: PassportKeys | KnownPassport,
    cachedAnalysis: BundleAnalysis | undefined,
  ): Promise<void> | undefined => {
    if (!response.verified) return undefined;
    return feed({ verified: true, version: response.version, passport }).then((stored) => {
      if (!stored || cachedAnalysis === undefined) return;
      const pending = unstoredBindings.get(cachedAnalysis);
      unstoredBindings.delete(cachedAnalysis);
      if (pending !== undefined) cache.release(pending.cacheKey, cachedAnalysis);
    });
  };

  const record = (response: AnswerSummary, facts: AnalysisFacts, startedAt: number, fresh: boolean) => {
    const tier = tierLabel(response.resolvedTier ?? facts.resolvedTier);
    metrics.latency.observe({ tier }, (performance.now() - startedAt) / 1000);
    metrics.requestsByTier.inc({ tier });
    metrics.verified.inc({
      result: response.verified ? 'verified' : 'rejected',
      version: response.version,
      tier,
    });
    for (const code of response.errorCodes) metrics.errorsByCode.inc({ code });
    if (fresh && facts.checkpointsVerified > 0) metrics.checkpointsVerified.inc(facts.checkpointsVerified);
  };

  // P501, P503, P555: whether the directory binds the bundle's agent or human to other keys. Asked before the
  // bundle's passport is fed, so it reads what the directory held before this bundle (as P45's continuity did),
  // from the directory itself (cached), not from the feed's outcome: a slow application or a cleared map of applied
  // passports no longer hides it. Awaited once the feed is.
  const askForeign = (
    feed: KeyDirectoryFeed | undefined,
    response: Pick<VerifyResponse, 'verified' | 'version'>,
    parties: BundleParties | undefined,
  ): ForeignPassport | undefined | Promise<ForeignPassport | undefined> =>
    feed?.foreignParties === undefined || parties === undefined || !directoryWarningsApply(response)
      ? undefined
      : feed.foreignParties(parties);

  // P282: asked after the I/O checks, so its warning comes after theirs; the directory is read, never written.
  const withRetired = (
    response: VerifyResponse,
    subject: BundleSubject,
    retired: RetiredKeyLookup | undefined,
  ): Promise<VerifyResponse> | VerifyResponse =>
    retired === undefined ? response : withRetiredKeyWarnings(response, subject, retired, options.log);

  const answerHit = async (
    hit: BundleAnalysis,
    evidence: SuppliedEvidence | undefined,
    startedAt: number,
    feed: KeyDirectoryFeed | undefined,
    retired: RetiredKeyLookup | undefined,
  ): Promise<VerificationOutcome> => {
    metrics.cacheHits.inc();
    // Time-dependent checks (key expiry and age, RPR and session expiry) run on every hit, and so
    // do revocation, attestation and anchor: only the analysis is cached, never a verdict (D20).
    // The key is the exact bytes, so the analysis was made of this very request (its uncovered members too).
    const finalized = verifier.finalize(hit, new Date());
    const subject = subjectOf(hit);
    let response = await withRetired(await external.apply(finalized, subject, evidence), subject, retired);
    record(summaryOf(response), factsOf(hit), startedAt, false);
    const asked = askForeign(feed, response, partiesOf.get(hit));
    // A binding the miss did not store (its verdict was false then, or the write failed) is stored now.
    const pending = unstoredBindings.get(hit);
    if (feed !== undefined && pending !== undefined) {
      await feedDirectory(feed, response, pending.passport, hit);
    }
    const foreign = await asked;
    if (foreign !== undefined) response = withWarnings(response, foreignPassportWarnings(foreign));
    return { kind: 'verdict', response, cache: 'hit' };
  };

  const run = async (
    body: WireBody,
    answer?: AnswerFormat,
    dispatch?: TaskDispatch,
  ): Promise<VerificationOutcome> => {
    const startedAt = performance.now();
    const feed = options.keyDirectory?.();
    const retired = options.retiredKeys?.();
    const answering =
      answer === undefined
        ? {}
        : {
            answer,
            revocationConfigured,
            ...(retired === undefined ? {} : { retiredKeys: true }),
            ...(retired?.filter === undefined ? {} : { retiredFilter: retired.filter }),
          };
    let cacheKey: string | undefined;
    let digest: string | undefined;
    if (cache.enabled) {
      // One native SHA-256 of the exact bytes: the main thread neither parses nor canonicalises the body,
      // which it did for every fresh body before P235 (×30 the CPU of the cache off at 0.9 MiB).
      digest = BodyMemo.digest(body.format, body.bytes);
      cacheKey = verificationCacheKey(settingsText, digest);
      const seen = knownBodies.get(digest);
      const hit = seen === undefined ? undefined : cache.get(cacheKey);
      if (seen !== undefined && hit !== undefined)
        return answerHit(hit, seen.evidence, startedAt, feed, retired);
    }
    // JSON and CBOR alike are read in the worker, off the event loop, cache on or off.
    const task: VerifyTask = {
      body: body.bytes,
      format: body.format,
      wantAnalysis: cacheKey !== undefined,
      wantBindings: feed !== undefined,
      now: Date.now(),
      ...answering,
    };

    // Nothing here reads the body after this (the worker returns the key bindings), so it is moved, not copied.
    const transfer =
      task.body !== undefined && ownsItsMemory(task.body) ? [task.body.buffer as ArrayBuffer] : [];
    const result = await (dispatch === undefined
      ? pool.run(task, transfer)
      : dispatch(task, transfer, body.bytes.byteLength));
    if (result.kind === 'bad_request') return result;
    // A body that is no request (the worker read it) is no miss: it was never to be analysed.
    if (cacheKey !== undefined) metrics.cacheMisses.inc();
    let cached: BundleAnalysis | undefined;
    if (cacheKey !== undefined && digest !== undefined && result.analysis) {
      // What a hit on these bytes needs beside the analysis: the evidence the worker read (none when it answered).
      knownBodies.set(digest, {
        cacheKey,
        evidence: result.kind === 'verdict' ? result.evidence : undefined,
      });
      if (result.passport !== undefined) {
        cached = result.analysis;
        cache.set(cacheKey, cached, retainedBytes(result.passport));
        unstoredBindings.set(cached, { passport: result.passport, cacheKey });
        if (result.parties !== undefined) partiesOf.set(cached, result.parties);
      } else {
        cache.set(cacheKey, result.analysis);
      }
    }
    const cacheMiss = cache.enabled ? { cache: 'miss' as const } : {};
    if (result.kind === 'answered') {
      // Nothing on this thread changes it (no evidence, no revocation look-up): the worker's bytes go out.
      record(result.answer.summary, result.facts, startedAt, true);
      const passport = handedPassport(result);
      const asked = askForeign(feed, result.answer.summary, result.parties);
      if (feed !== undefined && passport !== undefined) {
        await feedDirectory(feed, result.answer.summary, passport, cached);
      }
      const foreign = await asked;
      const answer =
        foreign === undefined
          ? result.answer
          : wiredWithWarnings(result.answer, foreignPassportWarnings(foreign));
      return { kind: 'answer', answer, ...cacheMiss };
    }
    // I/O checks after the CPU work; a revocation seen here evicts the entry just stored (D20).
    const checked = await withRetired(
      await external.apply(result.response, result.subject, result.evidence),
      result.subject,
      retired,
    );
    record(summaryOf(checked), result.facts, startedAt, true);
    const passport = handedPassport(result);
    const asked = askForeign(feed, checked, result.parties);
    if (feed !== undefined && passport !== undefined) {
      await feedDirectory(feed, checked, passport, cached);
    }
    const foreign = await asked;
    const response =
      foreign === undefined ? checked : withWarnings(checked, foreignPassportWarnings(foreign));
    return { kind: 'verdict', response, ...cacheMiss };
  };

  return { run };
}
