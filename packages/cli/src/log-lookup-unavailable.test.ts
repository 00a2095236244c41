// `proto verify --log URL --log-key VKEY` without witnesses, when the log is not there or answers something that
// is not an answer (P182, following P161/P169/P177): unreachable, an HTTP error, a look-up that is not JSON or has
// no log_index, an HTML page or a cut note where `/tlog-proof/N` should be. Each is the log unavailable: a retryable
// failed check, PROTO-E701, never E202 (a contradiction) and never for good. A well-formed answer that contradicts
// the bundle (a flipped log signature, a proof that does not lead to the root) still fails for good. The real CLI
// process against the real transparency log behind a local front that rewrites one answer.
import { writeFileSync } from 'node:fs';
import { type LogTestServer, startLogServer } from '@proto/anchor/testing';
import { buildSignedBundle, computeBundleHash } from '@proto/core';
import {
  type FrontRequest,
  forwardTo,
  freePort,
  type HostileFront,
  startHostileFront,
  tempDirSync,
} from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';
import { runCli as proto } from './test-support.ts';

const work = tempDirSync('cli-log-unavailable');
const bundleFile = `${work.dir}/bundle.json`;
let log: LogTestServer;
let front: HostileFront;

/** What the front answers instead of the log for one path; undefined: the log's own answer. */
type Rewrite = (request: FrontRequest, real: { status: number; text: string }) => Answer | undefined;
interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: string | Buffer;
}
let rewrite: Rewrite | undefined;

beforeAll(async () => {
  const signed = buildSignedBundle({ tier: 'standard' }).signed_bundle;
  const hash = computeBundleHash(signed);
  if (!hash.ok) throw new Error(hash.error.message);
  writeFileSync(bundleFile, JSON.stringify(signed));
  log = await startLogServer();
  for (const bundleHash of [`sha256:${'0a'.repeat(32)}`, hash.value]) {
    const added = await fetch(`${log.url}/add`, {
      method: 'POST',
      headers: { authorization: `Bearer ${log.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ bundle_hash: bundleHash }),
    });
    if (added.status >= 300) throw new Error(`the log refused the append: HTTP ${added.status}`);
  }
  await log.checkpoint();
  front = await startHostileFront(async (request, response) => {
    const answer = await forwardTo(`${log.url}${request.url}`, request);
    const real = { status: answer.status, text: await answer.text() };
    const instead = rewrite?.(request, real);
    if (instead !== undefined) {
      response.writeHead(instead.status, { 'content-type': instead.type }).end(instead.body);
      return;
    }
    response
      .writeHead(real.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' })
      .end(real.text);
  });
}, 120_000);

afterAll(async () => {
  await front?.close();
  await log?.close();
  work.remove();
});

interface Detail {
  readonly check: string;
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

async function verifyAgainst(url: string, how?: Rewrite) {
  rewrite = how;
  try {
    const run = await proto([
      'verify',
      '--json',
      bundleFile,
      '--log',
      url,
      '--log-key',
      log.verifierKey,
      '--timeout',
      '5000',
    ]);
    const out = JSON.parse(run.stdout) as {
      verified: boolean;
      checks: Record<string, string>;
      error_details?: Detail[];
    };
    return { run, out, detail: out.error_details?.find((d) => d.check === 'log_inclusion') };
  } finally {
    rewrite = undefined;
  }
}

/** One path answered by the front, every other one by the log. */
const on =
  (path: RegExp, answer: (real: { status: number; text: string }) => Answer): Rewrite =>
  (request, real) =>
    path.test(request.path) ? answer(real) : undefined;

const TEXT = 'text/plain; charset=utf-8';
const HTML = 'text/html; charset=utf-8';
const SIGN_IN = '<!doctype html><html><body><form>Sign in to continue</form></body></html>';
const LOOKUP = /^\/lookup\//;
const TLOG_PROOF = /^\/tlog-proof\//;

/** A tlog-proof's checkpoint note, and the lines before it (header, index, proof hashes). */
function splitTlogProof(text: string): { head: string; note: string } {
  const at = text.indexOf('\n\n');
  return { head: text.slice(0, at), note: text.slice(at + 2) };
}

/** The note with one byte of each signature flipped (the log signs with Ed25519 and ML-DSA): still a signed note. */
function flipSignatures(note: string): string {
  const at = note.lastIndexOf('\n\n') + 2;
  const lines = note
    .slice(at, -1)
    .split('\n')
    .map((line) => {
      const space = line.lastIndexOf(' ');
      const bytes = Buffer.from(line.slice(space + 1), 'base64');
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x01;
      return `${line.slice(0, space + 1)}${bytes.toString('base64')}`;
    });
  return `${note.slice(0, at)}${lines.join('\n')}\n`;
}

describe('P182: `proto verify --log` without witnesses reads a log that gives no answer as unavailable', {
  timeout: 90_000,
}, () => {
  it('the honest log passes through the front (the fixture is real)', async () => {
    const { run, out } = await verifyAgainst(front.url);
    expect(run.code, run.stderr).toBe(0);
    expect(out.checks['log_inclusion']).toBe('pass');
  });

  it('an unreachable log: E701, retryable, exit 1', async () => {
    const { run, out, detail } = await verifyAgainst(`http://127.0.0.1:${await freePort()}`);
    expect(run.code, run.stderr).toBe(1);
    expect(out.checks['log_inclusion']).toBe('fail');
    expect(detail).toMatchObject({ code: 'PROTO-E701', retryable: true });
  });

  const unavailable: [string, Rewrite, RegExp][] = [
    ['/lookup answered HTTP 503', on(LOOKUP, () => ({ status: 503, type: TEXT, body: 'busy' })), /HTTP 503/],
    [
      '/lookup answered a sign-in page with 200',
      on(LOOKUP, () => ({ status: 200, type: HTML, body: SIGN_IN })),
      /not JSON/,
    ],
    [
      '/lookup answered JSON without a log_index',
      on(LOOKUP, () => ({ status: 200, type: 'application/json', body: '{"found":true}' })),
      /no log_index/,
    ],
    [
      '/tlog-proof answered HTTP 502',
      on(TLOG_PROOF, () => ({ status: 502, type: TEXT, body: 'bad gateway' })),
      /HTTP 502/,
    ],
    [
      '/tlog-proof answered a sign-in page with 200',
      on(TLOG_PROOF, () => ({ status: 200, type: HTML, body: SIGN_IN })),
      /not a tlog-proof/,
    ],
    [
      '/tlog-proof answered a proof whose checkpoint is cut before its signatures',
      on(TLOG_PROOF, (real) => {
        const { head, note } = splitTlogProof(real.text);
        return { status: 200, type: TEXT, body: `${head}\n\n${note.slice(0, note.lastIndexOf('\n\n') + 1)}` };
      }),
      /not a signed note/,
    ],
    [
      '/tlog-proof answered a checkpoint with a byte that is not UTF-8',
      on(TLOG_PROOF, (real) => {
        const bytes = Buffer.from(real.text, 'utf8');
        // The first byte of the checkpoint's origin line: 0xFF starts no UTF-8 sequence.
        bytes[Buffer.byteLength(real.text.slice(0, real.text.indexOf('\n\n') + 2))] = 0xff;
        return { status: 200, type: TEXT, body: bytes };
      }),
      /not a signed note: signed note is not valid UTF-8/,
    ],
    [
      '/tlog-proof answered the proof of another entry',
      on(TLOG_PROOF, (real) => ({
        status: 200,
        type: TEXT,
        body: real.text.replace(/\nindex \d+\n/, '\nindex 0\n'),
      })),
      /another entry/,
    ],
  ];
  for (const [what, how, message] of unavailable) {
    it(`${what}: the log unavailable, E701, retryable, exit 1`, async () => {
      const { run, out, detail } = await verifyAgainst(front.url, how);
      expect(run.code, run.stderr).toBe(1);
      expect(out.verified).toBe(false);
      expect(out.checks['log_inclusion']).toBe('fail');
      expect(detail).toMatchObject({ code: 'PROTO-E701', retryable: true });
      expect(detail?.message).toMatch(message);
    });
  }

  it('an entry no signed checkpoint covers yet (/tlog-proof 404): E702, retryable, not E202', async () => {
    const { run, detail } = await verifyAgainst(
      front.url,
      on(TLOG_PROOF, () => ({ status: 404, type: 'application/json', body: '{"error":"not yet"}' })),
    );
    expect(run.code, run.stderr).toBe(1);
    expect(detail).toMatchObject({ code: 'PROTO-E702', retryable: true });
    expect(detail?.message).toMatch(/not in a signed checkpoint .* yet/);
  });

  it('a /lookup that is not found is "not in the log yet" (E702, retryable), not a contradiction (P194)', async () => {
    const { run, detail } = await verifyAgainst(
      front.url,
      on(LOOKUP, () => ({ status: 404, type: 'application/json', body: '{"error":"not found"}' })),
    );
    expect(run.code, run.stderr).toBe(1);
    expect(detail).toMatchObject({ code: 'PROTO-E702', retryable: true });
    expect(detail?.message).toMatch(/is not in .* \(yet\)/);
  });

  // P194: on a terminal the report says that the log could not decide it, and that asking again may pass; a
  // contradiction says no such thing.
  const readable: [string, Rewrite, string][] = [
    ['the log answering 503', on(LOOKUP, () => ({ status: 503, type: TEXT, body: 'down' })), 'PROTO-E701'],
    [
      'an entry not in a signed checkpoint yet',
      on(TLOG_PROOF, () => ({ status: 404, type: 'application/json', body: '{"error":"not yet"}' })),
      'PROTO-E702',
    ],
  ];
  for (const [what, how, code] of readable) {
    it(`the readable report of ${what} says ${code} and that it may pass later`, async () => {
      rewrite = how;
      try {
        const run = await runInProcess(
          ['verify', bundleFile, '--log', front.url, '--log-key', log.verifierKey, '--timeout', '5000'],
          { terminal: true },
        );
        expect(run.code).toBe(1);
        expect(run.stdout).toMatch(/^NOT VERIFIED/);
        expect(run.stdout).toMatch(new RegExp(`${code} \\(log_inclusion\\): .*\\(retryable\\)`));
        expect(run.stdout).toMatch(/could not be decided now: asking again later may pass/);
      } finally {
        rewrite = undefined;
      }
    });
  }

  it('the readable report of a contradiction does not offer a retry', async () => {
    rewrite = on(TLOG_PROOF, (real) => {
      const { head, note } = splitTlogProof(real.text);
      return { status: 200, type: TEXT, body: `${head}\n\n${flipSignatures(note)}` };
    });
    try {
      const run = await runInProcess(
        ['verify', bundleFile, '--log', front.url, '--log-key', log.verifierKey, '--timeout', '5000'],
        { terminal: true },
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^NOT VERIFIED/);
      expect(run.stdout).not.toMatch(/retryable|asking again/);
    } finally {
      rewrite = undefined;
    }
  });

  const contradictions: [string, Rewrite][] = [
    [
      'a flipped byte in each log signature of the proof’s checkpoint',
      on(TLOG_PROOF, (real) => {
        const { head, note } = splitTlogProof(real.text);
        return { status: 200, type: TEXT, body: `${head}\n\n${flipSignatures(note)}` };
      }),
    ],
    [
      'a proof hash replaced (the proof does not lead to the signed root)',
      on(TLOG_PROOF, (real) => {
        const { head, note } = splitTlogProof(real.text);
        const lines = head.split('\n');
        const last = lines.length - 1;
        if (!/^[A-Za-z0-9+/]{43}=$/.test(lines[last] ?? '')) throw new Error(`no proof hash in ${head}`);
        lines[last] = Buffer.alloc(32, 7).toString('base64');
        return { status: 200, type: TEXT, body: `${lines.join('\n')}\n\n${note}` };
      }),
    ],
  ];
  for (const [what, how] of contradictions) {
    it(`${what}: a failure for good, not retryable, not E701`, async () => {
      const { run, out, detail } = await verifyAgainst(front.url, how);
      expect(run.code, run.stderr).toBe(1);
      expect(out.checks['log_inclusion']).toBe('fail');
      expect(detail?.retryable).toBe(false);
      expect(detail?.code).not.toBe('PROTO-E701');
    });
  }
});
