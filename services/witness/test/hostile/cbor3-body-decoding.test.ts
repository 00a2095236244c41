// Brief "cbor3" (P590): the witness's one body-taking route, POST /add-checkpoint, reads its body as UTF-8 text whatever
// its label (c2sp.org/tlog-witness names no media type). Bytes that are not UTF-8 (a surrogate, UTF-16), a foreign
// charset label, a leading byte-order mark (kept, P382: no note starts with one), CRLF line ends and a CBOR text
// string of the same note are refused, and nothing is cosigned: the log's first add-checkpoint is still cosigned after
// them. The real witness over HTTP.
import {
  type HostileBody,
  hostileMismatches,
  type ListeningApp,
  listenOnPort0,
  type TempDir,
  tempDir,
} from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWitness, TestLog } from '../../src/test-support.ts';

const log = new TestLog('log.test/cbor3').grow(4);
const note = log.addCheckpointBody(0);
const text = (bytes: Buffer) => ({ contentType: 'text/plain', body: bytes, status: 400 as const });
const UTF8 = /must be UTF-8 text/;

const table: HostileBody[] = [
  {
    name: 'a byte that is no UTF-8',
    ...text(Buffer.concat([Buffer.from(note), Buffer.from([0xc3, 0x28])])),
    says: UTF8,
  },
  {
    name: 'a surrogate encoded in UTF-8 (CESU)',
    ...text(Buffer.concat([Buffer.from(note), Buffer.from([0xed, 0xa0, 0x80])])),
    says: UTF8,
  },
  {
    name: 'UTF-16LE with its byte-order mark',
    ...text(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(note, 'utf16le')])),
    says: UTF8,
  },
  { name: 'a leading byte-order mark', ...text(Buffer.from(`\ufeff${note}`)), says: /./ },
  { name: 'CRLF line ends', ...text(Buffer.from(note.replaceAll('\n', '\r\n'))), says: /./ },
  {
    name: 'the note as a CBOR text string',
    contentType: 'application/cbor',
    body: Buffer.concat([Buffer.from([0x79, note.length >> 8, note.length & 0xff]), Buffer.from(note)]),
    status: 400,
    says: /./,
  },
  {
    name: 'labelled charset=utf-16',
    contentType: 'text/plain; charset=utf-16',
    body: Buffer.from(note),
    status: 415,
    says: /charset/,
  },
];

describe('P590: hostile bodies on POST /add-checkpoint', () => {
  let dir: TempDir;
  let witness: ListeningApp<FastifyInstance>;
  beforeAll(async () => {
    dir = await tempDir('witness-cbor3');
    witness = await listenOnPort0(await buildTestWitness(dir.dir, { WITNESS_LOGS: log.vkey }));
  });
  afterAll(async () => {
    await witness?.close();
    await dir?.remove();
  });

  it('every hostile body is refused (400 E001, 415 for a foreign charset), and the first checkpoint is cosigned after', async () => {
    expect(await hostileMismatches(`${witness.url}/add-checkpoint`, table)).toEqual([]);
    const first = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: note });
    expect([first.status, await first.text()]).toEqual([200, expect.stringMatching(/^— /)]);
  });
});
