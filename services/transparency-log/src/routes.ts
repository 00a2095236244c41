// HTTP routes of the log: /add, /proof, /root, /root/signed, /checkpoint, /tlog-proof, /consistency, /entries.
// SPEC.md "Transparency log service"; DECISIONS D18 (fields, hex in JSON, base64 in checkpoints), D22 (who may append).

import {
  encodeBase64,
  formatKeyId,
  formatTlogProof,
  parseSignedNote,
  rfc9162LeafHash,
  tlogLeafInput,
  toHex,
} from '@proto/core';
import { errorResponses, type HttpError, httpError, protocolError, rateLimitPerIp } from '@proto/service-kit';
import type { LogCheckpointRecord, LogRepository } from '@proto/store';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CACHE_IMMUTABLE } from './cache-control.ts';
import type { Checkpointer } from './checkpointer.ts';
import { decimalIndexes } from './decimal-index.ts';
import type { InFlight } from './in-flight.ts';
import { notYetCosigned, type ProvableTrees, provableSize } from './provable-size.ts';
import { type RootAnchorer, rootAnchorView } from './root-anchor.ts';
import { type Sequencer, SequencerClosedError, SequencerFullError } from './sequencer.ts';
import type { LogSigningKeys } from './signing-keys.ts';
import { consistencyAnswer, inclusionAnswer, type NodeCache } from './tree.ts';

export interface LogRoutesOptions {
  readonly repository: LogRepository;
  readonly sequencer: Sequencer;
  readonly nodes: NodeCache;
  readonly checkpointer: Checkpointer;
  readonly anchorer?: RootAnchorer | undefined;
  readonly keys: LogSigningKeys;
  readonly origin: string;
  readonly entriesPageMax: number;
  readonly checkpointIntervalMs: number;
  /** Witnesses are configured: a checkpoint is served only once it has its quorum (issue 18). */
  readonly witnessed?: boolean;
  /** Operator-token check for POST /add, run on request before the body is read (issue 12 row h). */
  readonly addGuard: (request: FastifyRequest) => Promise<void>;
  /** Per-IP limit of appends (requests per minute); absent: none. */
  readonly addRateLimitPerMinute?: number | undefined;
  readonly onAppend?: (created: boolean) => void;
  /** Every handler runs inside it; shutdown waits for it before closing the store. */
  readonly inFlight: InFlight;
}

import {
  addBody,
  addResponse,
  consistencyResponse,
  entriesResponse,
  INDEX,
  proofResponse,
  rootResponse,
  signedRootResponse,
  TEXT_RESPONSE,
} from './route-schemas.ts';

/** Runs a handler inside `inFlight`, so that shutdown waits for it (see InFlight). */
function tracked<A extends unknown[], R>(
  inFlight: InFlight,
  handler: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return (...args) => inFlight.run(() => handler(...args));
}

function notFound(message: string, retryAfterMs?: number): HttpError {
  return retryAfterMs === undefined
    ? httpError('NOT_FOUND', message)
    : httpError('NOT_FOUND', message, {
        retryable: true,
        headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
      });
}

function signatureSummary(keys: LogSigningKeys, note: string) {
  const parsed = parseSignedNote(note);
  if (!parsed.ok) return [];
  return parsed.value.signatures.flatMap((line) => {
    const key = keys.verifiers.find((k) => k.name === line.keyName && k.keyId === line.keyId);
    if (key === undefined) return [];
    return [
      {
        alg: key.alg,
        key_name: key.name,
        key_id: formatKeyId(key.keyId),
        signature: encodeBase64(line.signature),
      },
    ];
  });
}

export async function logRoutes(app: FastifyInstance, options: LogRoutesOptions): Promise<void> {
  const { repository, sequencer, nodes, checkpointer, keys, inFlight } = options;
  const profile = app.protocolProfile;
  // P460: with witnesses, proofs only in trees the published checkpoint covers.
  const trees: ProvableTrees = {
    witnessed: options.witnessed === true,
    publishedSize: () => checkpointer.published?.size,
    retryAfterMs: options.checkpointIntervalMs,
  };
  // Before schema coercion: "0x10" or "1e400" in a URL is a 400, not 16 or Infinity (P151).
  app.addHook('preValidation', decimalIndexes(profile));

  /** The published checkpoint (with witnesses: the newest one with the quorum's cosignature lines). */
  async function latestCheckpoint(): Promise<LogCheckpointRecord> {
    if (checkpointer.published === undefined && options.witnessed !== true) await checkpointer.tick();
    const published = checkpointer.published;
    if (published === undefined) {
      // Never a checkpoint without its witness quorum: the client waits for the next round.
      throw httpError('NOT_READY', 'no checkpoint has gathered the witness quorum yet', {
        retryable: true,
        headers: { 'retry-after': String(Math.max(1, Math.ceil(options.checkpointIntervalMs / 1000))) },
      });
    }
    return published;
  }

  /**
   * The checkpoint of `size` a `?tree_size=` read serves, else a 404. With witnesses, only a size the quorum cosigned,
   * with its cosignature lines (P390): the log's own note of a size no quorum covers is never served. A size past the
   * published one may still come (retryable).
   */
  async function checkpointOfSize(size: number): Promise<LogCheckpointRecord> {
    const checkpoint = await checkpointer.checkpointOfSize(size);
    if (checkpoint !== undefined) return checkpoint;
    if (options.witnessed !== true) throw notFound(`no signed checkpoint of size ${size}`);
    const published = checkpointer.published?.size ?? -1;
    throw size > published
      ? notFound(
          `no checkpoint of size ${size} has gathered the witness quorum (published size ${Math.max(published, 0)})`,
          options.checkpointIntervalMs,
        )
      : notFound(`no witness-cosigned checkpoint of size ${size}`);
  }

  app.post<{ Body: { bundle_hash: unknown } }>(
    '/add',
    {
      schema: {
        summary: 'Append a bundle_hash; answers once the leaf is durably committed',
        description:
          '201 when the hash is new, 200 with its existing index when it is already in the log. ' +
          'Requires `Authorization: Bearer <OPERATOR_TOKEN>` (the generated DATA_DIR/operator-token when unset).',
        tags: ['log'],
        body: addBody,
        response: { 200: addResponse, 201: addResponse, ...errorResponses },
      },
      // onRequest: an unauthenticated body is refused before it is read or parsed.
      onRequest: options.addGuard,
      ...(options.addRateLimitPerMinute ? { config: rateLimitPerIp(options.addRateLimitPerMinute) } : {}),
    },
    tracked(inFlight, async (request, reply) => {
      const leaf = tlogLeafInput(request.body.bundle_hash);
      if (!leaf.ok) {
        throw protocolError(
          'BUNDLE_SCHEMA_INVALID',
          profile,
          'bundle_hash must be sha256:<64 lowercase hex>',
          {
            statusCode: 400,
          },
        );
      }
      let sequenced: Awaited<ReturnType<Sequencer['submit']>>;
      try {
        sequenced = await sequencer.submit(leaf.value);
      } catch (error) {
        if (error instanceof SequencerFullError || error instanceof SequencerClosedError) {
          throw protocolError('BACKPRESSURE', profile, `Log is busy: ${error.message}; retry later`, {
            headers: { 'retry-after': '1' },
          });
        }
        throw error;
      }
      options.onAppend?.(sequenced.created);
      reply.code(sequenced.created ? 201 : 200);
      return {
        log_index: sequenced.index,
        timestamp: sequenced.timestamp,
        leaf_hash: toHex(rfc9162LeafHash(leaf.value)),
        tree_size: sequenced.treeSize,
      };
    }),
  );

  app.get<{ Params: { log_index: number }; Querystring: { tree_size?: number } }>(
    '/proof/:log_index',
    {
      schema: {
        summary: 'Inclusion proof of the leaf at log_index (in the current tree, or the tree of tree_size)',
        tags: ['log'],
        params: { type: 'object', required: ['log_index'], properties: { log_index: INDEX } },
        querystring: { type: 'object', properties: { tree_size: INDEX } },
        response: { 200: proofResponse, ...errorResponses },
      },
    },
    tracked(inFlight, async (request, reply) => {
      const index = request.params.log_index;
      const head = await repository.head();
      if (index >= head.size) throw notFound(`log_index ${index} is beyond the log (size ${head.size})`);
      // P460: the default tree is the published one; a named size past it is not answered yet.
      const provable = provableSize(trees, head.size);
      const named = request.query.tree_size;
      if (named !== undefined && named > head.size)
        throw notFound(`tree_size ${named} is beyond the log (size ${head.size})`);
      if (named !== undefined && named > provable)
        throw notYetCosigned(trees, `tree_size ${named}`, head.size);
      if (named === undefined && index >= provable)
        throw notYetCosigned(trees, `log_index ${index}`, head.size);
      const treeSize = named ?? provable;
      if (index >= treeSize) {
        throw httpError('BAD_REQUEST', `log_index ${index} is not inside a tree of size ${treeSize}`);
      }
      const answer = await inclusionAnswer(nodes, index, treeSize);
      // P189: a proof in a tree the log has signed is as fixed as the entries under it (P183). Without tree_size
      // it follows the current tree, and above the signed size a restore from backup could rewrite the leaves.
      if (request.query.tree_size !== undefined && treeSize <= (checkpointer.published?.size ?? 0))
        reply.header('cache-control', CACHE_IMMUTABLE);
      return {
        log_index: index,
        tree_size: treeSize,
        leaf_hash: toHex(answer.leafHash),
        proof: answer.proof.map(toHex),
        root: toHex(answer.root),
      };
    }),
  );

  app.get<{ Params: { log_index: number }; Querystring: { tree_size?: number } }>(
    '/tlog-proof/:log_index',
    {
      schema: {
        summary: 'C2SP tlog-proof (text): the latest signed checkpoint, the index and its inclusion proof',
        description:
          'With tree_size, against the stored checkpoint of that size. Verify offline with `proto log verify`.',
        tags: ['log'],
        params: { type: 'object', required: ['log_index'], properties: { log_index: INDEX } },
        querystring: { type: 'object', properties: { tree_size: INDEX } },
        response: TEXT_RESPONSE,
      },
    },
    tracked(inFlight, async (request, reply) => {
      const index = request.params.log_index;
      const checkpoint =
        request.query.tree_size === undefined
          ? await latestCheckpoint()
          : await checkpointOfSize(request.query.tree_size);
      if (index >= checkpoint.size) {
        throw notFound(
          `log_index ${index} is not yet covered by a signed checkpoint (latest size ${checkpoint.size})`,
          options.checkpointIntervalMs,
        );
      }
      const answer = await inclusionAnswer(nodes, index, checkpoint.size);
      reply.type('text/plain; charset=utf-8');
      return formatTlogProof({ index, proof: answer.proof, checkpoint: checkpoint.note });
    }),
  );

  app.get(
    '/root',
    {
      schema: {
        summary: 'Current root and size (unsigned)',
        tags: ['log'],
        response: { 200: rootResponse, ...errorResponses },
      },
    },
    tracked(inFlight, async () => {
      const head = await repository.head();
      return { root: toHex(head.root), tree_size: head.size, timestamp: head.updatedAt };
    }),
  );

  app.get(
    '/root/signed',
    {
      schema: {
        summary: 'Latest signed checkpoint: root, size, C2SP note, verifier keys, latest root anchor',
        tags: ['log'],
        response: { 200: signedRootResponse, ...errorResponses },
      },
    },
    tracked(inFlight, async () => {
      const checkpoint = await latestCheckpoint();
      const anchor = options.anchorer?.latest;
      return {
        root: toHex(checkpoint.root),
        tree_size: checkpoint.size,
        timestamp: checkpoint.signedAt,
        origin: options.origin,
        checkpoint: checkpoint.note,
        verifier_keys: keys.vkeys,
        signatures: signatureSummary(keys, checkpoint.note),
        ...(anchor === undefined ? {} : { root_anchor: rootAnchorView(anchor) }),
      };
    }),
  );

  app.get<{ Querystring: { tree_size?: number } }>(
    '/checkpoint',
    {
      schema: {
        summary:
          'Latest signed checkpoint as a C2SP signed note (text/plain); with tree_size, that stored one',
        tags: ['log'],
        querystring: { type: 'object', properties: { tree_size: INDEX } },
        response: TEXT_RESPONSE,
      },
    },
    tracked(inFlight, async (request, reply) => {
      const size = request.query.tree_size;
      const checkpoint = size === undefined ? await latestCheckpoint() : await checkpointOfSize(size);
      reply.type('text/plain; charset=utf-8').header('cache-control', 'no-cache');
      return checkpoint.note;
    }),
  );

  app.get<{ Querystring: { first: number; second?: number } }>(
    '/consistency',
    {
      schema: {
        summary: 'RFC 9162 consistency proof between tree sizes first ≤ second (default: the current size)',
        tags: ['log'],
        querystring: { type: 'object', required: ['first'], properties: { first: INDEX, second: INDEX } },
        response: { 200: consistencyResponse, ...errorResponses },
      },
    },
    tracked(inFlight, async (request, reply) => {
      const head = await repository.head();
      const { first } = request.query;
      // P460: `second` defaults to the published tree, and a named one past it is not answered yet.
      const provable = provableSize(trees, head.size);
      if (request.query.second === undefined && provable < 0)
        throw notYetCosigned(trees, 'no tree of this log', head.size);
      const second = request.query.second ?? provable;
      if (second > head.size) throw notFound(`tree size ${second} is beyond the log (size ${head.size})`);
      if (second > provable) throw notYetCosigned(trees, `tree size ${second}`, head.size);
      if (first > second)
        throw httpError('BAD_REQUEST', `first (${first}) must not exceed second (${second})`);
      const answer = await consistencyAnswer(nodes, first, second);
      // P189: both sizes named and signed (first ≤ second): the proof between two signed trees never changes.
      if (request.query.second !== undefined && second <= (checkpointer.published?.size ?? 0))
        reply.header('cache-control', CACHE_IMMUTABLE);
      return {
        first,
        second,
        proof: answer.proof.map(toHex),
        first_root: toHex(answer.firstRoot),
        second_root: toHex(answer.secondRoot),
      };
    }),
  );

  app.get<{ Querystring: { start?: number; end?: number } }>(
    '/entries',
    {
      schema: {
        summary: `Leaves [start, end), at most ENTRIES_PAGE_MAX (${options.entriesPageMax}) per page`,
        tags: ['log'],
        querystring: { type: 'object', properties: { start: INDEX, end: INDEX } },
        response: { 200: entriesResponse, ...errorResponses },
      },
    },
    tracked(inFlight, async (request, reply) => {
      const head = await repository.head();
      const start = request.query.start ?? 0;
      const requestedEnd = request.query.end ?? start + options.entriesPageMax;
      if (requestedEnd < start)
        throw httpError('BAD_REQUEST', `end (${requestedEnd}) is before start (${start})`);
      const end = Math.max(start, Math.min(requestedEnd, start + options.entriesPageMax, head.size));
      const rows = await repository.entries(start, end);
      // P183: entries under a published checkpoint are fixed for good (a store restored from a backup may lose and
      // rewrite unsigned ones, never signed ones), so such a range, asked for exactly, is immutable. A range the
      // log shaped (no end, clamped to the page or the tree) or reaching past the signed size is not: the
      // read-route hook marks it no-cache. `tree_size` in a kept answer is the size when it was first served.
      const signedSize = checkpointer.published?.size ?? 0;
      if (request.query.end !== undefined && end === requestedEnd && end <= signedSize)
        reply.header('cache-control', CACHE_IMMUTABLE);
      return {
        start,
        end,
        tree_size: head.size,
        entries: rows.map((row) => ({
          log_index: row.index,
          bundle_hash: `sha256:${toHex(row.data)}`,
          leaf_hash: toHex(rfc9162LeafHash(row.data)),
          timestamp: row.timestamp,
        })),
      };
    }),
  );
}
