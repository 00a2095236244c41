// Test fixture of a WITNESSED log, until the witness service and the log's submission to it are merged:
// a tiny HTTP front that forwards every request to the real transparency log and, on GET /checkpoint and
// GET /root/signed, appends cosignature lines the test signs with core's cosignCheckpoint under test witness
// keys (c2sp.org/tlog-cosignature). It stands in only for the witnesses' lines, exactly where the log will
// publish them (the log's own signature lines first, then one line per witness); everything else is the real
// log. Acceptable per the issue 18 item 2 brief (verifier side), used by /verify, CLI and console tests.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Cosigner,
  cosignCheckpoint,
  cosignerKey,
  decodeBase64Strict,
  encodeBase64,
  formatCosignerKey,
  formatSignatureLine,
  selectCryptoBackend,
} from '@proto/core';

export interface TestWitness extends Cosigner {
  /** Its vkey `<name>+<id>+<base64(0x04 ‖ key)>`, as verifiers configure it. */
  readonly vkey: string;
}

export function testWitness(name: string): TestWitness {
  const pair = selectCryptoBackend().generateKeyPair('ed25519');
  const key = cosignerKey(name, pair.publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return { ...key.value, secretKey: pair.secretKey, vkey: formatCosignerKey(key.value) };
}

/** The witnesses of quorum tests: a, b and c are the configured ones, `stranger` is configured nowhere. */
export function testWitnessSet(): Record<'a' | 'b' | 'c' | 'stranger', TestWitness> {
  return {
    a: testWitness('witness.test/a'),
    b: testWitness('witness.test/b'),
    c: testWitness('witness.test/c'),
    stranger: testWitness('witness.test/x'),
  };
}

/** The signed text of a note: everything up to and including the line before the blank line. */
export function checkpointTextOf(note: string): string {
  return note.slice(0, note.lastIndexOf('\n\n') + 1);
}

/** A cosignature/v1 line of `witness` over `checkpointText` (with its final newline). */
export function cosignatureLine(
  checkpointText: string,
  witness: Cosigner,
  timestamp = 1_790_000_000,
): string {
  const line = cosignCheckpoint(checkpointText, witness, timestamp);
  if (!line.ok) throw new Error(line.error.message);
  return formatSignatureLine(line.value);
}

/** The same checkpoint text with another root of the same size: what a forked (split-view) log shows others. */
export function forkedCheckpointText(checkpointText: string): string {
  const [origin, size, root, ...rest] = checkpointText.split('\n');
  const bytes = decodeBase64Strict(root ?? '');
  if (bytes === undefined) throw new Error('not a checkpoint text');
  bytes[0] = (bytes[0] ?? 0) ^ 0xff;
  return [origin, size, encodeBase64(bytes), ...rest].join('\n');
}

/** Given the checkpoint text the log serves, the cosignature lines to append ('' for none). */
export type Witnessing = (checkpointText: string) => string;

export interface WitnessedLogFront {
  /** Base URL to give receipts (the anchor service's TL_URL) and verifiers. */
  readonly url: string;
  /** Changes the lines appended from now on (default: none, the log as it is). */
  setWitnessing(witnessing: Witnessing): void;
  /**
   * Serves this (older, real) signed note instead of the log's newest, as a witnessed log does while its newest
   * checkpoint lacks the quorum; undefined serves the newest again.
   */
  serveOlder(note: string | undefined): void;
  close(): Promise<void>;
}

async function body(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startWitnessedLogFront(logUrl: string): Promise<WitnessedLogFront> {
  let witnessing: Witnessing = () => '';
  let older: string | undefined;
  const cosign = (newest: string) => {
    const note = older ?? newest;
    return note + witnessing(checkpointTextOf(note));
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        // No conditional request (P189's ETag): the front rewrites checkpoints, so the log's 304 for its own bytes
        // would confirm a copy the front wrote differently.
        if (
          typeof value === 'string' &&
          !['host', 'connection', 'content-length', 'if-none-match', 'if-modified-since'].includes(name)
        )
          headers.set(name, value);
      }
      const method = request.method ?? 'GET';
      const answer = await fetch(`${logUrl}${request.url ?? '/'}`, {
        method,
        headers,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: await body(request) }),
      });
      // Bytes as they came (tiles are binary); only the two checkpoint answers are rewritten.
      let payload: Buffer | string = Buffer.from(await answer.arrayBuffer());
      const path = (request.url ?? '').split('?')[0];
      if (answer.status === 200 && method === 'GET' && path === '/checkpoint')
        payload = cosign(payload.toString());
      if (answer.status === 200 && method === 'GET' && path === '/root/signed') {
        const json = JSON.parse(payload.toString()) as { checkpoint?: unknown };
        if (typeof json.checkpoint === 'string')
          payload = JSON.stringify({ ...json, checkpoint: cosign(json.checkpoint) });
      }
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'etag'].includes(name))
          out[name] = value;
      });
      response.writeHead(answer.status, out).end(payload);
    })().catch((error: unknown) => {
      response.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setWitnessing(next) {
      witnessing = next;
    },
    serveOlder(note) {
      older = note;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
