// `proto verify --log URL --log-key VKEY --witness-key …` reads the log's witnessed checkpoint (GET /checkpoint).
// P169's rule, applied to the CLI (P177): an answer that is not a signed note at all (a sign-in page, a note cut
// before its signatures, a signature line that is not base64, a control character) is the log unavailable, a
// retryable failed check (PROTO-E701, exit 1 as the README documents for `verify --log`); a note that parses but
// whose log signature does not verify, or that has no line from the log's key, still fails for good. The real CLI
// process, against the real log and anchor service behind a local front that rewrites the checkpoint.
import { writeFileSync } from 'node:fs';
import {
  cosignatureLine,
  startWitnessedAnchoring,
  testWitnessSet,
  type WitnessedAnchoring,
} from '@proto/anchor/testing';
import { buildSignedBundle, computeBundleHash } from '@proto/core';
import { forwardTo, type HostileFront, startHostileFront, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as proto } from './test-support.ts';

const work = tempDirSync('cli-log-witnessed-shape');
const { a, b, c } = testWitnessSet();
const WITNESS_FLAGS = [...[a, b, c].flatMap((w) => ['--witness-key', w.vkey]), '--witness-quorum', '2'];

type Rewrite = (note: string) => string;

let anchoring: WitnessedAnchoring;
let hostile: HostileFront;
let hostileUrl: string;
let rewrite: Rewrite | undefined;
let contentType = 'text/plain; charset=utf-8';
const bundleFile = `${work.dir}/bundle.json`;

beforeAll(async () => {
  const signed = buildSignedBundle({ tier: 'standard' }).signed_bundle;
  const hash = computeBundleHash(signed);
  if (!hash.ok) throw new Error(hash.error.message);
  writeFileSync(bundleFile, JSON.stringify(signed));
  anchoring = await startWitnessedAnchoring('cli-log-witnessed-shape', hash.value);
  anchoring.front.setWitnessing((text) => cosignatureLine(text, a) + cosignatureLine(text, b));
  hostile = await startHostileFront(async (request, response) => {
    const answer = await forwardTo(`${anchoring.front.url}${request.url}`, request);
    const text = await answer.text();
    if (rewrite !== undefined && request.path === '/checkpoint' && answer.status === 200) {
      response.writeHead(200, { 'content-type': contentType }).end(rewrite(text));
      return;
    }
    response
      .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' })
      .end(text);
  });
  hostileUrl = hostile.url;
}, 120_000);

afterAll(async () => {
  await hostile?.close();
  await anchoring?.close();
  work.remove();
});

interface LogDetail {
  readonly check: string;
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/** `proto verify --json --log` through the hostile front, with the checkpoint rewritten by `how`. */
async function verifyWith(how: Rewrite | undefined, type = 'text/plain; charset=utf-8') {
  rewrite = how;
  contentType = type;
  try {
    const run = await proto([
      'verify',
      '--json',
      bundleFile,
      '--log',
      hostileUrl,
      '--log-key',
      anchoring.log.verifierKey,
      ...WITNESS_FLAGS,
    ]);
    const out = JSON.parse(run.stdout) as {
      verified: boolean;
      checks: Record<string, string>;
      error_details?: LogDetail[];
    };
    return { run, out, detail: out.error_details?.find((d) => d.check === 'log_inclusion') };
  } finally {
    rewrite = undefined;
  }
}

/** The note's signature lines (after the blank line), each `— name base64`. */
const signatureLines = (note: string) => note.slice(note.lastIndexOf('\n\n') + 2).split('\n');
const textOf = (note: string) => note.slice(0, note.lastIndexOf('\n\n') + 1);
const logLineOf = (note: string) => {
  const origin = note.slice(0, note.indexOf('\n'));
  return signatureLines(note).findIndex((line) => line.startsWith(`— ${origin} `));
};

/** The log's own signature line with one byte of its signature flipped: still a well-formed note. */
function flipLogSignature(note: string): string {
  const lines = signatureLines(note);
  const at = logLineOf(note);
  const line = lines[at] as string;
  const b64 = line.slice(line.lastIndexOf(' ') + 1);
  const bytes = Buffer.from(b64, 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x01;
  lines[at] = `${line.slice(0, line.lastIndexOf(' ') + 1)}${bytes.toString('base64')}`;
  return `${textOf(note)}\n${lines.join('\n')}`;
}

describe('P177: the witnessed checkpoint of `proto verify --log`, as P169 reads it', {
  timeout: 90_000,
}, () => {
  it('the honest checkpoint passes (the fixture is real)', async () => {
    const { run, out } = await verifyWith(undefined);
    expect(run.code, run.stderr).toBe(0);
    expect(out.checks['log_inclusion']).toBe('pass');
  });

  const notANote: [string, Rewrite, string?][] = [
    ['an HTML page with status 200', () => '<html><body>Sign in to continue</body></html>', 'text/html'],
    ['a note cut before its signatures', (note) => textOf(note)],
    [
      'a log signature line that is not base64',
      (note) => {
        const lines = signatureLines(note);
        const at = logLineOf(note);
        const line = lines[at] as string;
        lines[at] = `${line.slice(0, line.lastIndexOf(' ') + 1)}!!not-base64!!`;
        return `${textOf(note)}\n${lines.join('\n')}`;
      },
    ],
    ['a control character in the signed text', (note) => note.replace('\n', '\u0007\n')],
  ];
  for (const [what, how, type] of notANote) {
    it(`${what}: the log unavailable, a retryable failed check (E701), exit 1`, async () => {
      const { run, out, detail } = await verifyWith(how, type);
      expect(run.code, run.stderr).toBe(1);
      expect(out.checks['log_inclusion']).toBe('fail');
      expect(detail).toMatchObject({ code: 'PROTO-E701', retryable: true });
      expect(detail?.message).toMatch(/not a signed note/);
    });
  }

  const badSignature: [string, Rewrite][] = [
    ['a flipped byte in the log signature', flipLogSignature],
    [
      'no line from the log key (only the witnesses’)',
      (note) => {
        const lines = signatureLines(note);
        lines.splice(logLineOf(note), 1);
        return `${textOf(note)}\n${lines.join('\n')}`;
      },
    ],
  ];
  for (const [what, how] of badSignature) {
    it(`${what}: still a failure for good, not retryable, exit 1`, async () => {
      const { run, out, detail } = await verifyWith(how);
      expect(run.code, run.stderr).toBe(1);
      expect(out.checks['log_inclusion']).toBe('fail');
      expect(detail?.retryable).toBe(false);
      expect(detail?.code).not.toBe('PROTO-E701');
    });
  }
});
