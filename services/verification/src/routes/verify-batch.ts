// POST /verify/batch: many bundles in one request (a JSON array or NDJSON), one /verify result per
// bundle, in order, streamed as NDJSON while they finish. Issue 14 item 3; SPEC.md "POST /verify", D12.
import { PassThrough } from 'node:stream';
import type { ProtocolProfile } from '@proto/core';
import { errorCode } from '@proto/core';
import { errorResponses, httpError, rateLimitPerIp } from '@proto/service-kit';
import type { FastifyInstance } from 'fastify';
import { type BatchFormat, splitBatch } from '../batch-items.ts';
import type { VerificationMetrics } from '../metrics.ts';
import { PoolSaturatedError } from '../pool.ts';
import type { VerificationOutcome, VerificationRunner } from '../verification-run.ts';
import { badVerifyRequest } from '../verify-request.ts';

export interface VerifyBatchRouteOptions {
  readonly runner: VerificationRunner;
  readonly profile: ProtocolProfile;
  readonly metrics: VerificationMetrics;
  /** VERIFY_BATCH_MAX_ITEMS: more bundles than this is 413. */
  readonly maxItems: number;
  /** VERIFY_BATCH_MAX_BYTES: a larger body is 413. */
  readonly maxBytes: number;
  /** Requests (not bundles) per minute per client IP; 0 = unlimited. */
  readonly rateLimitPerMinute: number;
  /** Bundles of one batch in the pool at once (default: two per worker thread). */
  readonly window: number;
}

export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

interface BatchBody {
  readonly format: BatchFormat;
  readonly bytes: Buffer;
}

export async function verifyBatchRoute(
  app: FastifyInstance,
  options: VerifyBatchRouteOptions,
): Promise<void> {
  const { runner, profile, metrics, maxItems, maxBytes } = options;

  app.removeAllContentTypeParsers();
  for (const [type, format] of [
    ['application/json', 'json-array'],
    [NDJSON_CONTENT_TYPE, 'ndjson'],
  ] as const) {
    app.addContentTypeParser(
      type,
      { parseAs: 'buffer', bodyLimit: maxBytes },
      (_req, bytes: Buffer, done) => {
        done(null, { format, bytes } satisfies BatchBody);
      },
    );
  }

  const tooLarge = () =>
    httpError('PAYLOAD_TOO_LARGE', `A batch body holds at most ${maxBytes} bytes`, { retryable: false });

  /** One bundle's line: the /verify 200 body, or the /verify 400 body for an item that is no request. */
  const lineOf = (outcome: VerificationOutcome): string => {
    if (outcome.kind === 'verdict') return `${JSON.stringify(outcome.response)}\n`;
    const bad = badVerifyRequest(profile, outcome.message);
    metrics.errorsByCode.inc({ code: bad.error_details[0]!.code });
    return `${JSON.stringify(bad)}\n`;
  };

  const internalLine = (): string =>
    `${JSON.stringify({
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
    })}\n`;

  app.post(
    '/verify/batch',
    {
      bodyLimit: maxBytes,
      config: options.rateLimitPerMinute > 0 ? rateLimitPerIp(options.rateLimitPerMinute) : {},
      validatorCompiler: () => () => true,
      schema: {
        summary: 'Verify many Signed Bundles in one request',
        description: `A JSON array (application/json) or NDJSON (${NDJSON_CONTENT_TYPE}) of /verify request bodies, at most VERIFY_BATCH_MAX_ITEMS bundles and VERIFY_BATCH_MAX_BYTES bytes (413 beyond). The answer is NDJSON, one line per bundle in the order sent, streamed as they finish: the /verify 200 body, or the /verify 400 body for an item that is not a verify request (one bad item does not spoil the others).`,
        tags: ['verification'],
        consumes: ['application/json', NDJSON_CONTENT_TYPE],
        produces: [NDJSON_CONTENT_TYPE],
        response: errorResponses,
      },
      // Before the body is read: a declared length over the limit is refused with this route's limit.
      onRequest: async (request) => {
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
      },
    },
    async (request, reply) => {
      const body = request.body as BatchBody | undefined;
      if (!body || body.bytes.length === 0) {
        throw httpError('BAD_REQUEST', 'A batch body holds one bundle request or more');
      }
      const split = splitBatch(body.bytes, body.format, maxItems);
      if (!split.ok) {
        if (split.reason === 'too_many')
          throw httpError('PAYLOAD_TOO_LARGE', split.message, { retryable: false });
        throw httpError('BAD_REQUEST', split.message);
      }
      const items = split.items;
      if (items.length === 0) throw httpError('BAD_REQUEST', 'A batch body holds one bundle request or more');

      const out = new PassThrough();
      reply.type(NDJSON_CONTENT_TYPE);
      void streamInOrder(items, out, request.raw.socket).catch((error: unknown) => {
        request.log.error({ err: error }, 'batch verification failed');
        out.destroy(error as Error);
      });
      return reply.send(out);
    },
  );

  /**
   * Runs the items through the pool, at most `window` at a time (back pressure per bundle: a batch
   * never floods the queue, and a full queue makes it wait, not fail), writing lines in order.
   */
  async function streamInOrder(
    items: readonly Uint8Array[],
    out: PassThrough,
    connection: { readonly destroyed: boolean } | null,
  ): Promise<void> {
    const lines: (Promise<string> | undefined)[] = new Array(items.length);
    let next = 0;
    const start = (index: number): Promise<string> => {
      const item = items[index]!;
      const attempt = async (): Promise<string> => {
        for (;;) {
          try {
            return lineOf(await runner.run({ format: 'json', bytes: item }));
          } catch (error) {
            if (!(error instanceof PoolSaturatedError)) return internalLine();
            // The pool is full of other requests' work: wait for room instead of failing this bundle.
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      };
      return attempt();
    };
    const fill = (upTo: number) => {
      while (next < items.length && next < upTo) {
        lines[next] = start(next);
        next++;
      }
    };
    fill(options.window);
    for (let i = 0; i < items.length; i++) {
      // A caller that hung up gets no more work done for it.
      if (connection?.destroyed === true || out.destroyed) return;
      const line = await lines[i]!;
      lines[i] = undefined;
      fill(i + 1 + options.window);
      if (!out.write(line)) {
        await new Promise((resolve) => {
          out.once('drain', resolve);
          out.once('close', resolve);
        });
      }
    }
    out.end();
  }
}
