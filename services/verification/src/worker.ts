// Verification worker thread (piscina): one Verifier built once from the configuration, then one
// bundle per task. docs/architecture.md §3 (CPU-heavy verification in a bounded worker pool), issue 14.
import { flushCompileCache } from 'node:module';
import { workerData } from 'node:worker_threads';
import {
  type BundleAnalysis,
  createVerifier,
  selectCryptoBackend,
  type VerifyResponse,
} from '@proto/core/verifier';
// The CBOR codec alone, not the package index (Fastify, pino, ioredis, prom-client): P72.
import { decodeCbor } from '@proto/service-kit/cbor';
import type { PassportKeys } from '@proto/store';
import { Piscina } from 'piscina';
import { type AnswerFormat, type WiredAnswer, wiredAnswer } from './answer-wire.ts';
import {
  type AnalysisFacts,
  analyzeOptionsFor,
  type BundleSubject,
  evidenceOf,
  externalChecksApply,
  factsOf,
  passedV2Schema,
  type SuppliedEvidence,
  subjectOf,
} from './bundle-subject.ts';
import { type BundleParties, passportKeysOf } from './records/bundle-key-bindings.ts';
import { PassportEvidence } from './records/passport-evidence.ts';
import { PassportHandover } from './records/passport-handover.ts';
import { retiredKeysApply } from './retired-keys.ts';
import { mayBeRetired } from './retired-kid-filter.ts';
import { threadCpuReporter } from './thread-cpu.ts';
import type { PortableVerifierOptions } from './verifier-options.ts';
import { checkVerifyRequest, parseJsonBody, prototypeMemberRefusal } from './verify-request.ts';

export type { AnalysisFacts } from './bundle-subject.ts';

// Every module of the thread is loaded by now: cache them (NODE_COMPILE_CACHE; see service-kit's run.ts).
flushCompileCache();

export interface VerifyTask {
  /**
   * The raw body, read here, off the event loop (transferred, not copied, when it owns its memory): the main
   * thread only hashes it, for the cache key (P235).
   */
  readonly body?: Uint8Array;
  readonly format?: 'json' | 'cbor';
  /** Return the whole analysis (for the cache); otherwise only its metric facts. */
  readonly wantAnalysis: boolean;
  /**
   * The key directory is on: return the key bindings a V2 bundle proves, so the main thread never keeps or
   * re-reads the body (issue 15). Read for verified bundles, and for every V2 analysis the cache keeps (a
   * later hit may verify).
   */
  readonly wantBindings?: boolean;
  /** The clock reading finalize() uses (ms since the epoch). */
  readonly now: number;
  /**
   * The wire format of the answer: when the main thread's I/O checks will add nothing (no evidence
   * supplied, no revocation look-up for this bundle), the worker writes the answer's bytes (P68).
   */
  readonly answer?: AnswerFormat;
  /** REVOCATION_SOURCES names a jurisdiction: a bundle naming an agent gets a look-up on the main thread. */
  readonly revocationConfigured?: boolean;
  /**
   * The key directory is mounted: a verified V2 verdict gets a look-up of its retired signing keys on the main
   * thread, which may add a warning (P282), so the worker does not write its bytes.
   */
  readonly retiredKeys?: boolean;
  /**
   * P410: the shared filter of retired kids. With it, only a verdict one of whose signing kids the filter holds is
   * left to the main thread's look-up; any other keeps the worker-written answer.
   */
  readonly retiredFilter?: SharedArrayBuffer;
}

interface VerdictParts {
  readonly facts: AnalysisFacts;
  /** What the main thread's I/O checks (revocation, attestation, anchor) need. */
  readonly subject: BundleSubject;
  readonly analysis?: BundleAnalysis;
  readonly passport?: PassportKeys | undefined;
  /** Instead of `passport`: the evidence of a passport this thread handed over in full within its refresh period (P229). */
  readonly passportEvidence?: string;
  /** With `passport` or `passportEvidence`: whom the bundle names and who signed it, for P555's continuity read. */
  readonly parties?: BundleParties;
}

export type VerifyTaskResult =
  | { readonly kind: 'bad_request'; readonly message: string }
  | (VerdictParts & {
      readonly kind: 'verdict';
      readonly response: VerifyResponse;
      /** The request's anchor receipt and attestation, when it carried any (the main thread may not have parsed it). */
      readonly evidence?: SuppliedEvidence;
    })
  /** The final answer, already in the wire format the task asked for (its bytes transferred back). */
  | (VerdictParts & { readonly kind: 'answered'; readonly answer: WiredAnswer });

/** What the pool hands each thread: the verifier's options and where the thread adds up its CPU. */
export interface VerifyWorkerData extends PortableVerifierOptions {
  readonly threadCpu: SharedArrayBuffer;
  /** How often a passport seen again is handed over in full (P229); its default otherwise. */
  readonly passportRefreshMs?: number;
}

const setup = workerData as VerifyWorkerData;
const built = createVerifier({ ...setup.options, backend: selectCryptoBackend(setup.backend) });
if (!built.ok) throw new Error(`verifier configuration rejected: ${built.error.message}`);
const verifier = built.value;
const reportThreadCpu = threadCpuReporter(setup.threadCpu);
const passportEvidence = new PassportEvidence();
const passportHandover = new PassportHandover(setup.passportRefreshMs);
// The thread's start (module loading, the verifier) is part of what the pool costs.
reportThreadCpu();

/** The task's request, read from its body; a message when it is not one. */
function requestOf(
  task: VerifyTask,
): { ok: true; request: Record<string, unknown> } | { ok: false; message: string } {
  if (task.body === undefined) return { ok: false, message: 'Missing signed_bundle in body' };
  let value: unknown;
  if (task.format === 'cbor') {
    try {
      value = decodeCbor(task.body);
    } catch (error) {
      return { ok: false, message: `Request body is not valid CBOR: ${(error as Error).message}` };
    }
    // P381: the decoder refuses `__proto__`; `constructor.prototype` is refused as the JSON reader refuses it. The
    // walk costs a fraction of a search of the body's bytes for "prototype" (P531).
    const refused = prototypeMemberRefusal(value);
    if (refused !== undefined) return { ok: false, message: refused };
  } else {
    const parsed = parseJsonBody(task.body);
    if (!parsed.ok) return parsed;
    value = parsed.value;
  }
  return checkVerifyRequest(value);
}

/** Several bundles of one batch in one pool task: verified in order, one result each (P109). */
export interface VerifyGroupTask {
  readonly group: readonly VerifyTask[];
}

/** One bundle of a group whose verification threw: that bundle alone fails (the others are answered). */
export interface VerifyTaskFailure {
  readonly kind: 'failed';
  readonly message: string;
}

export type VerifyGroupResult = {
  readonly kind: 'group';
  readonly results: readonly (VerifyTaskResult | VerifyTaskFailure)[];
};

export default function verifyTask(task: VerifyTask | VerifyGroupTask): VerifyTaskResult | VerifyGroupResult {
  try {
    if ('group' in task) return groupOf(task.group);
    return verdictOf(task);
  } finally {
    reportThreadCpu();
  }
}

function groupOf(tasks: readonly VerifyTask[]): VerifyGroupResult {
  const results: (VerifyTaskResult | VerifyTaskFailure)[] = [];
  const moved: ArrayBuffer[] = [];
  for (const task of tasks) {
    try {
      const result = verdictOf(task, moved);
      results.push(result);
    } catch (error) {
      results.push({ kind: 'failed', message: (error as Error).message });
    }
  }
  const result: VerifyGroupResult = { kind: 'group', results };
  if (moved.length === 0) return result;
  const movable = { [Piscina.transferableSymbol]: moved, [Piscina.valueSymbol]: result };
  return Piscina.move(movable as unknown as ArrayBuffer) as unknown as VerifyGroupResult;
}

/** `moved`: a group's list of buffers to transfer (a single task moves its answer's bytes itself). */
function verdictOf(task: VerifyTask, moved?: ArrayBuffer[]): VerifyTaskResult {
  const read = requestOf(task);
  if (!read.ok) return { kind: 'bad_request', message: read.message };
  const evidence = evidenceOf(read.request);
  // P123: the bundle hash is the directory's evidence, taken only for passport keys this thread has not yet
  // seen in a verified bundle; otherwise that bundle's hash stands for it and this one is not hashed whole.
  const keys =
    task.wantBindings === true ? passportKeysOf(read.request, verifier.settings.maxKeyAgeDays) : undefined;
  const seenWith = keys === undefined ? undefined : passportEvidence.of(keys);
  const forKeys = keys !== undefined && seenWith === undefined;
  const analysis = verifier.analyze(read.request, analyzeOptionsFor(evidence, forKeys));
  const response = verifier.finalize(analysis, new Date(task.now));
  const pastSchemaV2 = passedV2Schema(analysis);
  if (forKeys && pastSchemaV2 && response.verified && analysis.bundleHash !== undefined)
    passportEvidence.remember(keys, analysis.bundleHash);
  const bundleHash = seenWith ?? analysis.bundleHash;
  const handsOver =
    keys !== undefined &&
    bundleHash !== undefined &&
    pastSchemaV2 &&
    (response.verified || task.wantAnalysis);
  // P229: a cached analysis keeps its passport until stored, so only an uncached verdict sends the evidence alone.
  const evidenceOnly = handsOver && !task.wantAnalysis && passportHandover.recent(bundleHash, task.now);
  const passport = handsOver && !evidenceOnly ? keys.withEvidence(bundleHash) : undefined;
  if (passport !== undefined && !task.wantAnalysis) passportHandover.handedOver(passport.evidence, task.now);
  const subject = subjectOf(analysis);
  const parts: VerdictParts = {
    facts: factsOf(analysis),
    subject,
    ...(task.wantAnalysis ? { analysis } : {}),
    ...(passport === undefined ? {} : { passport }),
    ...(evidenceOnly ? { passportEvidence: bundleHash } : {}),
    ...(handsOver ? { parties: keys.parties } : {}),
  };
  if (
    task.answer !== undefined &&
    !externalChecksApply(task.revocationConfigured === true, subject, evidence) &&
    !(
      task.retiredKeys === true &&
      retiredKeysApply(response, subject) &&
      (task.retiredFilter === undefined || mayBeRetired(task.retiredFilter, subject.signerKids))
    )
  ) {
    const answer = wiredAnswer(response, task.answer);
    if (moved !== undefined) {
      moved.push(answer.bytes.buffer as ArrayBuffer);
      return { kind: 'answered', answer, ...parts };
    }
    return movingBytes({ kind: 'answered', answer, ...parts }, answer.bytes);
  }
  return { kind: 'verdict', response, ...(evidence === undefined ? {} : { evidence }), ...parts };
}

/** The result with `bytes`' memory transferred to the main thread instead of copied (piscina's movable). */
function movingBytes(result: VerifyTaskResult, bytes: Uint8Array): VerifyTaskResult {
  const movable = {
    [Piscina.transferableSymbol]: [bytes.buffer],
    [Piscina.valueSymbol]: result,
  };
  return Piscina.move(movable as unknown as ArrayBuffer) as unknown as VerifyTaskResult;
}
