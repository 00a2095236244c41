// C2SP tlog-tiles read API: hash tiles and entry bundles, served from the perfect subtrees stored at append time.
// Issue 18 item 1; c2sp.org/tlog-tiles; D18 (leaf = 32 raw bytes of bundle_hash), D19 (stored perfect subtrees).
import { TILE_WIDTH } from '@proto/core';
import { httpError } from '@proto/service-kit';
import { type LogRepository, logNodeKey } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import { CACHE_IMMUTABLE } from './cache-control.ts';
import type { InFlight } from './in-flight.ts';
import type { NodeCache } from './tree.ts';

const FULL_TILE_CACHE = CACHE_IMMUTABLE;
// A partial tile's bytes never change either, but clients should move on to the wider tile soon.
const PARTIAL_TILE_CACHE = 'public, max-age=5';

/**
 * The tile's lifetime: only leaves under the published checkpoint are fixed (P183: a restore from backup may lose
 * and rewrite unsigned ones), so a tile reaching past it gets none, and the read-route hook marks it no-cache (P355).
 */
function tileCache(tile: TileRequest, signedSize: number): string | undefined {
  const level = tile.level === 'entries' ? 0 : tile.level;
  // The tile exists, so its last leaf is below head.size and this product stays a safe integer.
  const lastLeaf = (tile.index * TILE_WIDTH + tile.width) * TILE_WIDTH ** level;
  if (lastLeaf > signedSize) return undefined;
  return tile.width === TILE_WIDTH ? FULL_TILE_CACHE : PARTIAL_TILE_CACHE;
}
const TILE_PATH = /^(entries|0|[1-9]\d?)\/((?:x\d{3}\/)*\d{3})(?:\.p\/([1-9]\d{0,2}))?$/;

interface TileRequest {
  readonly level: number | 'entries';
  readonly index: number;
  readonly width: number;
}

function parseTilePath(path: string): TileRequest | undefined {
  const match = TILE_PATH.exec(path);
  if (match === null) return undefined;
  const [, level = '', groups = '', width] = match;
  const index = Number(groups.replaceAll('x', '').replaceAll('/', ''));
  const w = width === undefined ? TILE_WIDTH : Number(width);
  // A partial tile is narrower than a full one: `.p/256` is not a valid name.
  if (!Number.isSafeInteger(index) || w > TILE_WIDTH || (width !== undefined && w === TILE_WIDTH))
    return undefined;
  // The spec's encoding is unique: no extra leading zero groups.
  if (groups.startsWith('x000/')) return undefined;
  const numericLevel = level === 'entries' ? 'entries' : Number(level);
  if (numericLevel !== 'entries' && numericLevel > 63) return undefined;
  return { level: numericLevel, index, width: w };
}

export async function tileRoutes(
  app: FastifyInstance,
  options: {
    readonly repository: LogRepository;
    readonly nodes: NodeCache;
    readonly inFlight: InFlight;
    /** Size of the published checkpoint (with witnesses: the newest with its quorum); 0 before any. */
    readonly signedSize: () => number;
  },
): Promise<void> {
  app.get<{ Params: { '*': string } }>(
    '/tile/*',
    {
      schema: {
        summary: 'C2SP tlog-tiles: hash tiles tile/<L>/<N>[.p/<W>] and tile/entries/<N>[.p/<W>]',
        tags: ['log'],
      },
    },
    async (request, reply) => {
      const tile = parseTilePath(request.params['*']);
      if (tile === undefined) throw httpError('BAD_REQUEST', 'not a C2SP tlog-tiles path');
      return options.inFlight.run(async () => {
        // Only committed leaves are in head.size, so no tile ever describes an uncommitted leaf.
        const { size } = await options.repository.head();
        const tileLevel = tile.level === 'entries' ? 0 : tile.level;
        const available = Math.floor(size / TILE_WIDTH ** tileLevel) - tile.index * TILE_WIDTH;
        if (available < tile.width) throw httpError('NOT_FOUND', 'that tile does not exist (yet)');
        const first = tile.index * TILE_WIDTH;
        let body: Buffer;
        if (tile.level === 'entries') {
          const entries = await options.repository.entries(first, first + tile.width);
          const parts: Buffer[] = [];
          for (const entry of entries) {
            const length = Buffer.alloc(2);
            length.writeUInt16BE(entry.data.length);
            parts.push(length, Buffer.from(entry.data));
          }
          body = Buffer.concat(parts);
        } else {
          const level = tile.level * 8;
          const coordinates = Array.from({ length: tile.width }, (_, i) => ({ level, index: first + i }));
          const found = await options.nodes.read(coordinates);
          body = Buffer.concat(
            coordinates.map((c) => {
              const hash = found.get(logNodeKey(c.level, c.index));
              if (hash === undefined) throw new Error(`stored node ${c.level}/${c.index} is missing`);
              return hash;
            }),
          );
        }
        reply.header('content-type', 'application/octet-stream').header('access-control-allow-origin', '*');
        const cache = tileCache(tile, options.signedSize());
        if (cache !== undefined) reply.header('cache-control', cache);
        return body;
      });
    },
  );
}
