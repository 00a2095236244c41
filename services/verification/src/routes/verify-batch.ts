// POST /verify/batch: many bundles in one request (a JSON array, NDJSON or a CBOR sequence), one /verify
// result per bundle, in order, streamed as NDJSON or a CBOR sequence while they finish. Issue 14 item 3;
// SPEC.md "POST /verify", D12; docs/verify-batch.md.
import { PassThrough } from 'node:stream';
import type { ProtocolProfile } from '@proto/core';
import { errorCode } from '@proto/core';
import {
  acceptQuality,
  bodyTooLarge,
  encodeCbor,
  errorResponses,
  httpError,
  protocolError,
  rateLimitKey,
} from '@proto/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type BatchFormat, takeBatchItems } from '../batch-items.ts';
import { formatBodyParser } from '../body-reader.ts';
import type { VerificationMetrics } from '../metrics.ts';
import { PoolSaturatedError, type VerifyPool } from '../pool.ts';
import {
  GROUP_MAX_BYTES,
  taskGrouper,
  type VerificationOutcome,
  type VerificationRunner,
} from '../verification-run.ts';
import { badVerifyRequest } from '../verify-request.ts';

export interface VerifyBatchRouteOptions {
  readonly runner: VerificationRunner;
  readonly profile: ProtocolProfile;
  readonly metrics: VerificationMetrics;
  /** VERIFY_BATCH_MAX_ITEMS: more bundles than this is 413. */
  readonly maxItems: number;
  /** VERIFY_BATCH_MAX_BYTES: a larger body is 413. */
  readonly maxBytes: number;
  /**
   * /verify's body limit: a bundle request larger than this gets /verify's 413 body in its place, unread, as it
   * would alone (P142).
   */
  readonly maxItemBytes: number;
  /** Bundles (not requests) per minute per client IP; 0 = unlimited. */
  readonly rateLimitPerMinute: number;
  /** Bundles of one batch in the pool at once (default: two per worker thread). */
  readonly window: number;
  readonly pool: VerifyPool;
  /** Bundles per pool task (P109); 1 sends each bundle alone. */
  readonly groupSize: number;
}

export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';
/** RFC 8742: CBOR items back to back, no framing. */
export const CBOR_SEQ_CONTENT_TYPE = 'application/cbor-seq';

/** A CBOR sequence answer when the caller prefers it to NDJSON (NDJSON wins ties and is the default). */
function prefersCborSequence(accept: string | undefined): boolean {
  if (!accept?.toLowerCase().includes(CBOR_SEQ_CONTENT_TYPE)) return false;
  const cbor = acceptQuality(accept, CBOR_SEQ_CONTENT_TYPE);
  return cbor > 0 && cbor > acceptQuality(accept, NDJSON_CONTENT_TYPE);
}

interface BatchBody {
  readonly format: BatchFormat;
  readonly bytes: Buffer;
}

export async function verifyBatchRoute(
  app: FastifyInstance,
  options: VerifyBatchRouteOptions,
): Promise<void> {
  const { runner, profile, metrics, maxItems, maxBytes, maxItemBytes } = options;

  app.removeAllContentTypeParsers();
  for (const [type, format] of [
    ['application/json', 'json-array'],
    [NDJSON_CONTENT_TYPE, 'ndjson'],
    [CBOR_SEQ_CONTENT_TYPE, 'cbor-seq'],
  ] as const) {
    // The body is read into one buffer, its socket pieces freed as they are copied, and the buffer freed once
    // the items are cut out of it (P134).
    app.addContentTypeParser(
      type,
      formatBodyParser(format, () => maxBytes),
    );
  }

  const tooLarge = () =>
    httpError('PAYLOAD_TOO_LARGE', `A batch body holds at most ${maxBytes} bytes`, { retryable: false });

  // Every bundle of a batch counts against the caller's budget, as it would as one /verify request each
  // (P32), all taken in one atomic step (one Redis round trip; one more looks before the body, P166), or none
  // when they do not all fit (P78). The store of @fastify/rate-limit: Redis when REDIS_URL is set, so
  // replicas share it.
  const perMinute = options.rateLimitPerMinute;
  const takeUnits = perMinute > 0 ? app.takeRateLimitUnits : undefined;
  if (perMinute > 0 && takeUnits === undefined) {
    app.log.warn('no rate limiter installed: POST /verify/batch is not rate-limited');
  }
  const budgetKey = (request: FastifyRequest) => `verify-batch:${rateLimitKey(request)}`;
  const overBudget = (waitMs: number, why: (retryAfter: number) => string) => {
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    return protocolError(
      'RATE_LIMIT_EXCEEDED',
      profile,
      `Rate limit exceeded: ${perMinute} bundles per minute, counted per bundle of a batch; ${why(retryAfter)}`,
      { headers: { 'retry-after': String(retryAfter) } },
    );
  };
  const chargeBundles = async (request: FastifyRequest, count: number): Promise<void> => {
    if (takeUnits === undefined) return;
    const charged = await takeUnits(budgetKey(request), count, perMinute, 60_000);
    if (charged.taken) return;
    // A batch larger than the whole budget never fits: the window's full length is the honest wait.
    const room = Math.max(0, perMinute - charged.current);
    throw overBudget(count > perMinute ? 60_000 : charged.ttlMs, (retryAfter) =>
      count > perMinute
        ? `a batch of more than ${perMinute} bundles never fits: split it`
        : `this batch of ${count} does not fit (${room} left; none were taken); retry in ${retryAfter} s`,
    );
  };
  /**
   * Before the body is read (P166): a caller with no bundle left in its window gets its 429 now, not after
   * up to 8 MiB were read, scanned and copied. Taking no units only reads the count (it may open the window).
   */
  const refuseWhenSpent = async (request: FastifyRequest): Promise<void> => {
    if (takeUnits === undefined) return;
    const budget = await takeUnits(budgetKey(request), 0, perMinute, 60_000);
    if (budget.current < perMinute) return;
    throw overBudget(budget.ttlMs, (retryAfter) => `none left; retry in ${retryAfter} s`);
  };

  /** One answer item as NDJSON text or a CBOR item. */
  type Encode = (value: unknown) => string | Uint8Array;
  const asNdjson: Encode = (value) => `${JSON.stringify(value)}\n`;
  const asCbor: Encode = (value) => encodeCbor(value);

  /** One bundle's answer item: as the worker wrote it (P68), or encoded here. */
  const itemOf = (outcome: VerificationOutcome, encode: Encode): string | Uint8Array =>
    outcome.kind === 'answer' ? outcome.answer.bytes : encode(answerOf(outcome));

  /** One bundle's answer: the /verify 200 body, or the /verify 400 body for an item that is no request. */
  const answerOf = (outcome: Exclude<VerificationOutcome, { kind: 'answer' }>): unknown => {
    if (outcome.kind === 'verdict') return outcome.response;
    const bad = badVerifyRequest(profile, outcome.message);
    metrics.errorsByCode.inc({ code: bad.error_details[0]!.code });
    return bad;
  };

  /**
   * The /verify 413 body (service-kit's error handler answers /verify the same), for an item /verify would not
   * read: what a thread parses is bounded by /verify's limit, not the batch's, so a megabyte-scale item of
   * dense JSON costs a thread no more than a /verify body can (P142).
   */
  const itemTooLarge = (): unknown => {
    const error = bodyTooLarge(maxItemBytes);
    metrics.errorsByCode.inc({ code: error.code });
    return error.toBody();
  };

  const internalAnswer = (): unknown => ({
    verified: false,
    errors: ['Internal error'],
    error_details: [
      {
        code: errorCode('INTERNAL_ERROR', profile),
        check: 'request',
        message: 'Internal error',
        retryable: true,
      },
    ],
  });

  app.post(
    '/verify/batch',
    {
      bodyLimit: maxBytes,
      validatorCompiler: () => () => true,
      schema: {
        summary: 'Verify many Signed Bundles in one request',
        description: `A JSON array (application/json), NDJSON (${NDJSON_CONTENT_TYPE}) or a CBOR sequence (${CBOR_SEQ_CONTENT_TYPE}, RFC 8742) of /verify request bodies, at most VERIFY_BATCH_MAX_ITEMS bundles and VERIFY_BATCH_MAX_BYTES bytes (413 beyond), each bundle request within /verify's body limit (a larger one gets the /verify 413 body in its place); each bundle counts against VERIFY_RATE_LIMIT_PER_MINUTE. The answer is NDJSON (or a CBOR sequence with Accept: ${CBOR_SEQ_CONTENT_TYPE}), one item per bundle in the order sent, streamed as they finish: the /verify 200 body, or the /verify 400 body for an item that is not a verify request (one bad item does not spoil the others).`,
        tags: ['verification'],
        consumes: ['application/json', NDJSON_CONTENT_TYPE, CBOR_SEQ_CONTENT_TYPE],
        produces: [NDJSON_CONTENT_TYPE, CBOR_SEQ_CONTENT_TYPE],
        response: errorResponses,
      },
      // Before the body is read: a declared length over the limit is refused with this route's limit, and a
      // caller whose budget is spent with its 429.
      onRequest: async (request) => {
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
        await refuseWhenSpent(request);
      },
    },
    async (request, reply) => {
      const body = request.body as BatchBody | undefined;
      if (!body || body.bytes.length === 0) {
        throw httpError('BAD_REQUEST', 'A batch body holds one bundle request or more');
      }
      const split = takeBatchItems(body.bytes, body.format, maxItems);
      if (!split.ok) {
        if (split.reason === 'too_many')
          throw httpError('PAYLOAD_TOO_LARGE', split.message, { retryable: false });
        throw httpError('BAD_REQUEST', split.message);
      }
      const items = split.items;
      if (items.length === 0) throw httpError('BAD_REQUEST', 'A batch body holds one bundle request or more');
      await chargeBundles(request, items.length);

      const cborOut = prefersCborSequence(request.headers.accept);
      const out = new PassThrough();
      reply.type(cborOut ? CBOR_SEQ_CONTENT_TYPE : NDJSON_CONTENT_TYPE);
      const itemFormat = body.format === 'cbor-seq' ? 'cbor' : 'json';
      void streamInOrder(items, itemFormat, cborOut, out, request.raw.socket).catch((error: unknown) => {
        request.log.error({ err: error }, 'batch verification failed');
        out.destroy(error as Error);
      });
      return reply.send(out);
    },
  );

  /**
   * Runs the items through the pool, at most `window` at a time (back pressure per bundle: a batch
   * never floods the queue, and a full queue makes it wait, not fail), writing answers in order. The
   * answers that are ready together (the next in order and every finished one after it, once the
   * messages already delivered this turn are read) go out in one write: one chunk through the stream,
   * the HTTP framing and the socket instead of one per bundle.
   */
  async function streamInOrder(
    items: readonly Uint8Array[],
    format: 'json' | 'cbor',
    cborOut: boolean,
    out: PassThrough,
    connection: { readonly destroyed: boolean } | null,
  ): Promise<void> {
    const encode = cborOut ? asCbor : asNdjson;
    const answerFormat = cborOut ? 'cbor' : 'ndjson';
    const pending: (Promise<void> | undefined)[] = new Array(items.length);
    const finished: (string | Uint8Array | undefined)[] = new Array(items.length);
    let next = 0;
    const groupSize = Math.max(1, Math.floor(options.groupSize));
    const dispatch = groupSize > 1 ? taskGrouper(options.pool, groupSize) : undefined;
    // The window counts pool tasks, as before grouping: `window` groups of up to `groupSize` bundles, and
    // of bodies up to `window` groups' bytes, so big bundles (sent a few per group) do not fill the pool
    // with many more tasks than threads × 2 (P109).
    const window = options.window * groupSize;
    const byteWindow = groupSize > 1 ? options.window * GROUP_MAX_BYTES : Number.POSITIVE_INFINITY;
    let inFlightBytes = 0;
    // Read before the items are transferred to the workers (a transferred buffer's length reads 0).
    const sizes = items.map((item) => item.byteLength);
    const start = async (index: number): Promise<void> => {
      const item = items[index]!;
      if (sizes[index]! > maxItemBytes) {
        finished[index] = encode(itemTooLarge());
        return;
      }
      for (;;) {
        try {
          finished[index] = itemOf(await runner.run({ format, bytes: item }, answerFormat, dispatch), encode);
          return;
        } catch (error) {
          if (!(error instanceof PoolSaturatedError)) {
            finished[index] = encode(internalAnswer());
            return;
          }
          // The pool is full of other requests' work: wait for room instead of failing this bundle.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    let written = 0;
    const fill = (upTo: number) => {
      // With nothing in flight one item always starts, so the byte bound can never stall the batch.
      while (next < items.length && next < upTo && (next === written || inFlightBytes < byteWindow)) {
        inFlightBytes += sizes[next]!;
        pending[next] = start(next);
        next++;
      }
    };
    fill(window);
    while (written < items.length) {
      // A caller that hung up gets no more work done for it.
      if (connection?.destroyed === true || out.destroyed) return;
      await pending[written];
      // Another thread's answer may already be waiting in its message port: read it before writing.
      if (written + 1 < next && finished[written + 1] === undefined) await new Promise(setImmediate);
      const ready: (string | Uint8Array)[] = [];
      while (written < items.length && finished[written] !== undefined) {
        ready.push(finished[written]!);
        finished[written] = undefined;
        pending[written] = undefined;
        inFlightBytes -= sizes[written]!;
        written++;
      }
      fill(written + window);
      if (!out.write(joined(ready))) {
        await new Promise((resolve) => {
          out.once('drain', resolve);
          out.once('close', resolve);
        });
      }
    }
    out.end();
  }
}

/** Answers of one write as one chunk (NDJSON text, or bytes when any answer came as the worker's bytes). */
function joined(parts: readonly (string | Uint8Array)[]): string | Uint8Array {
  if (parts.length === 1) return parts[0]!;
  if (parts.every((part) => typeof part === 'string')) return parts.join('');
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}
