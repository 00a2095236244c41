// Verification worker thread (piscina): one Verifier built once from the configuration, then one
// bundle per task. docs/architecture.md §3 (CPU-heavy verification in a bounded worker pool).
import { workerData } from 'node:worker_threads';
import { type BundleAnalysis, createVerifier, selectCryptoBackend, type VerifyResponse } from '@proto/core';
import { type BundleSubject, evidenceOf, type SuppliedEvidence, subjectOf } from './bundle-subject.ts';
import type { PortableVerifierOptions } from './verifier-options.ts';
import { checkVerifyRequest, parseJsonBody } from './verify-request.ts';

export interface VerifyTask {
  /** The raw JSON body (parsed here, off the event loop)… */
  readonly json?: Uint8Array;
  /** The main thread already parsed `json` strictly (cache key): only JSON.parse is left to do. */
  readonly jsonChecked?: boolean;
  /** …or a request already decoded on the main thread (CBOR, or JSON read for the cache key). */
  readonly request?: unknown;
  /** Return the whole analysis (for the cache); otherwise only its metric facts. */
  readonly wantAnalysis: boolean;
  /** The clock reading finalize() uses (ms since the epoch). */
  readonly now: number;
}

export interface AnalysisFacts {
  readonly version: string;
  readonly resolvedTier?: string;
  readonly checkpointsVerified: number;
}

export type VerifyTaskResult =
  | { readonly kind: 'bad_request'; readonly message: string }
  | {
      readonly kind: 'verdict';
      readonly response: VerifyResponse;
      readonly facts: AnalysisFacts;
      /** What the main thread's I/O checks (revocation, attestation, anchor) need. */
      readonly subject: BundleSubject;
      /** The request's anchor receipt and attestation, when it carried any (the main thread may not have parsed it). */
      readonly evidence?: SuppliedEvidence;
      readonly analysis?: BundleAnalysis;
    };

const setup = workerData as PortableVerifierOptions;
const built = createVerifier({ ...setup.options, backend: selectCryptoBackend(setup.backend) });
if (!built.ok) throw new Error(`verifier configuration rejected: ${built.error.message}`);
const verifier = built.value;

export default function verifyTask(task: VerifyTask): VerifyTaskResult {
  let body: unknown = task.request;
  if (task.json !== undefined) {
    const parsed = parseJsonBody(task.json, { alreadyChecked: task.jsonChecked === true });
    if (!parsed.ok) return { kind: 'bad_request', message: parsed.message };
    body = parsed.value;
  }
  const read = checkVerifyRequest(body);
  if (!read.ok) return { kind: 'bad_request', message: read.message };
  const analysis = verifier.analyze(read.request);
  const response = verifier.finalize(analysis, new Date(task.now));
  const facts: AnalysisFacts = {
    version: analysis.version,
    ...(analysis.resolvedTier === undefined ? {} : { resolvedTier: analysis.resolvedTier }),
    checkpointsVerified: analysis.checkpointsVerified,
  };
  const evidence = evidenceOf(read.request);
  return {
    kind: 'verdict',
    response,
    facts,
    subject: subjectOf(analysis),
    ...(evidence === undefined ? {} : { evidence }),
    ...(task.wantAnalysis ? { analysis } : {}),
  };
}
