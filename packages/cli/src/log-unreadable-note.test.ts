// `proto log verify` and `proto log prove` read a checkpoint that is not a signed note at all (a sign-in page, a
// note cut before its signatures, a signature line that is not base64) as P169 and P177 read it for `verify --log`:
// not a verdict on the log. `log verify` (files) calls it unreadable input and `log prove --key` (the log's answer)
// an unusable answer, both exit 2 with the reason, as each already does for a proof file or a checkpoint page that
// is not one; the witness tally's own "cannot read the note" (`unreadable`) is the same outcome. A note that parses
// but whose signature does not verify is still `verified: false`, exit 1. P182. The real CLI process, the real log.
import { writeFileSync } from 'node:fs';
import { cosignatureLine, type LogTestServer, startLogServer, testWitnessSet } from '@proto/anchor/testing';
import { buildSignedBundle, computeBundleHash } from '@proto/core';
import { type HostileFront, startHostileFront, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support.ts';

const work = tempDirSync('cli-log-unreadable-note');
const { a } = testWitnessSet();
let log: LogTestServer;
let front: HostileFront;
/** The log's checkpoint, cosigned by witness a. */
let note: string;
/** What the front answers at /checkpoint; every other path is the log's own answer (but see `proofBody`). */
let served: string;
/** When set, the front's answer to GET /proof/N (the witnessed path of `verify --log`). */
let proofBody: string | undefined;
const bundleFile = `${work.dir}/bundle.json`;

const textOf = (n: string) => n.slice(0, n.lastIndexOf('\n\n') + 1);
const signaturesOf = (n: string) => n.slice(n.lastIndexOf('\n\n') + 2, -1).split('\n');

/** One byte of every signature flipped: still a well-formed signed note. */
function flipSignatures(n: string): string {
  const lines = signaturesOf(n).map((line) => {
    const space = line.lastIndexOf(' ');
    const bytes = Buffer.from(line.slice(space + 1), 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x01;
    return `${line.slice(0, space + 1)}${bytes.toString('base64')}`;
  });
  return `${textOf(n)}\n${lines.join('\n')}\n`;
}

const SIGN_IN = '<!doctype html><html><body>Sign in to continue</body></html>\n';
const notANote: [string, () => string][] = [
  ['a sign-in page', () => SIGN_IN],
  ['a note cut before its signatures', () => textOf(note)],
  [
    'a signature line that is not base64',
    () =>
      `${textOf(note)}\n${signaturesOf(note)
        .map((line, i) => (i === 0 ? `${line.slice(0, line.lastIndexOf(' '))} !!not-base64!!` : line))
        .join('\n')}\n`,
  ],
];

function file(name: string, text: string): string {
  const path = `${work.dir}/${name}`;
  writeFileSync(path, text);
  return path;
}

beforeAll(async () => {
  log = await startLogServer();
  const signed = buildSignedBundle({ tier: 'standard' }).signed_bundle;
  const hash = computeBundleHash(signed);
  if (!hash.ok) throw new Error(hash.error.message);
  writeFileSync(bundleFile, JSON.stringify(signed));
  for (const bundleHash of [`sha256:${'0c'.repeat(32)}`, hash.value]) {
    const added = await fetch(`${log.url}/add`, {
      method: 'POST',
      headers: { authorization: `Bearer ${log.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ bundle_hash: bundleHash }),
    });
    if (added.status >= 300) throw new Error(`the log refused the append: HTTP ${added.status}`);
  }
  await log.checkpoint();
  const plain = await (await fetch(`${log.url}/checkpoint`)).text();
  note = `${plain}${cosignatureLine(textOf(plain), a)}`;
  served = note;
  front = await startHostileFront(async (request, response) => {
    if (request.path === '/checkpoint') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(served);
      return;
    }
    if (proofBody !== undefined && request.path.startsWith('/proof/')) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(proofBody);
      return;
    }
    const real = await fetch(`${log.url}${request.url}`);
    response.writeHead(real.status).end(Buffer.from(await real.arrayBuffer()));
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
  await log?.close();
  work.remove();
});

const witness = () => ['--witness-key', a.vkey];

describe('P182: `proto log verify` reads a checkpoint file that is not a signed note as unreadable input', {
  timeout: 90_000,
}, () => {
  it('the real cosigned checkpoint verifies, with its witness (the fixture is real)', async () => {
    const run = await runCli([
      'log',
      'verify',
      '--checkpoint',
      file('ok.note', note),
      '--key',
      log.verifierKey,
      ...witness(),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ verified: true, witnesses: { cosigned: [a.name] } });
  });

  for (const [what, make] of notANote) {
    it(`${what}: exit 2, "not a signed note", with and without witnesses`, async () => {
      const path = file(`${what.replace(/\W/g, '-')}.note`, make());
      for (const extra of [[], witness()]) {
        const run = await runCli(['log', 'verify', '--checkpoint', path, '--key', log.verifierKey, ...extra]);
        expect(run.code, `${run.stdout}${run.stderr}`).toBe(2);
        expect(run.stderr).toMatch(/not a signed note/);
        expect(run.stdout).toBe('');
      }
    });
  }

  it('flipped signatures: a verdict, verified false, exit 1', async () => {
    const path = file('flipped.note', flipSignatures(note));
    const run = await runCli(['log', 'verify', '--checkpoint', path, '--key', log.verifierKey, ...witness()]);
    expect(run.code, run.stderr).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ verified: false });
  });
});

describe('P182: `proto log prove --key` reads a checkpoint answer that is not a signed note as unusable', {
  timeout: 90_000,
}, () => {
  const prove = (extra: string[] = []) =>
    runCli(['log', 'prove', '--tiles', front.url, '--index', '0', '--key', log.verifierKey, ...extra]);

  it('the real cosigned checkpoint proves, with its witness (the fixture is real)', async () => {
    served = note;
    const run = await prove(witness());
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ verified: true, matches_checkpoint: true });
  });

  // A sign-in page is refused before the key is used (the shape check P162 kept); these two pass that check.
  for (const [what, make] of notANote.slice(1)) {
    it(`${what}: exit 2, "not a signed note", with and without witnesses`, async () => {
      served = make();
      try {
        for (const extra of [[], witness()]) {
          const run = await prove(extra);
          expect(run.code, `${run.stdout}${run.stderr}`).toBe(2);
          expect(run.stderr).toMatch(/not a signed note/);
          expect(run.stdout).toBe('');
        }
      } finally {
        served = note;
      }
    });
  }

  it('flipped signatures: a verdict, verified false, exit 1', async () => {
    served = flipSignatures(note);
    try {
      const run = await prove(witness());
      expect(run.code, run.stderr).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ verified: false });
    } finally {
      served = note;
    }
  });
});

describe('P182: `proto verify --log --witness-key` reads a /proof answer without a proof[] as the log unavailable', {
  timeout: 90_000,
}, () => {
  const verify = async () => {
    const run = await runCli([
      'verify',
      '--json',
      bundleFile,
      '--log',
      front.url,
      '--log-key',
      log.verifierKey,
      ...witness(),
    ]);
    const out = JSON.parse(run.stdout) as {
      checks: Record<string, string>;
      error_details?: { check: string; code: string; message: string; retryable: boolean }[];
    };
    return { run, out, detail: out.error_details?.find((d) => d.check === 'log_inclusion') };
  };

  it('the honest witnessed proof passes (the fixture is real)', async () => {
    const { run, out } = await verify();
    expect(run.code, run.stderr).toBe(0);
    expect(out.checks['log_inclusion']).toBe('pass');
  });

  for (const body of ['{"tree_size":2}', '{"proof":"none"}', '{"proof":[1,2]}']) {
    it(`${body}: E701, retryable (not an empty proof that fails for good)`, async () => {
      proofBody = body;
      try {
        const { run, detail } = await verify();
        expect(run.code, run.stderr).toBe(1);
        expect(detail).toMatchObject({ code: 'PROTO-E701', retryable: true });
        expect(detail?.message).toMatch(/no proof\[\]/);
      } finally {
        proofBody = undefined;
      }
    });
  }
});
