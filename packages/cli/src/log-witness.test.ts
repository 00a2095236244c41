// `--witness-key` / `--witness-quorum` on `proto verify --log` (look-up and --receipt), `proto log verify` and
// `proto log prove`: the real transparency log and anchor service in-process, the checkpoint's cosignature lines
// added by @proto/anchor/testing's witnessed-log front (a fixture until the witness service is merged). A
// checkpoint below k distinct configured witnesses over this exact text exits 1; bad flags exit 2 (P23). P59, P60.
import { writeFileSync } from 'node:fs';
import {
  cosignatureLine,
  forkedCheckpointText,
  type LogTestServer,
  startWitnessedAnchoring,
  testWitnessSet,
  type WitnessedAnchoring,
  type WitnessedLogFront,
  type Witnessing,
} from '@proto/anchor/testing';
import { buildSignedBundle, computeBundleHash, formatVerifierKey, noteVerifierKey } from '@proto/core';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const work = tempDirSync('cli-log-witness');
const { a, b, c, stranger } = testWitnessSet();
const logStyle = noteVerifierKey('log.example/x', 'ed25519', new Uint8Array(32).fill(5));
if (!logStyle.ok) throw new Error(logStyle.error.message);
/** A log's Ed25519 verifier key (type 0x01), not a witness's cosignature key (type 0x04). */
const LOG_STYLE_KEY = formatVerifierKey(logStyle.value);
const WITNESS_FLAGS = [...[a, b, c].flatMap((w) => ['--witness-key', w.vkey]), '--witness-quorum', '2'];

let anchoring: WitnessedAnchoring;
let log: LogTestServer;
let front: WitnessedLogFront;
let receiptFile: string;
let bundleHash: string;
const bundleFile = `${work.dir}/bundle.json`;

beforeAll(async () => {
  const signed = buildSignedBundle({ tier: 'standard' }).signed_bundle;
  const hash = computeBundleHash(signed);
  if (!hash.ok) throw new Error(hash.error.message);
  writeFileSync(bundleFile, JSON.stringify(signed));
  bundleHash = hash.value;
  anchoring = await startWitnessedAnchoring('cli-log-witness', hash.value);
  ({ log, front } = anchoring);
  receiptFile = `${work.dir}/receipt.json`;
  writeFileSync(receiptFile, JSON.stringify(anchoring.receipt));
});
afterAll(async () => {
  await anchoring?.close();
  work.remove();
});

const proto = (args: readonly string[]) => runInProcess(args);
const logFlags = () => ['--log', front.url, '--log-key', log.verifierKey];

/** The five commands that rely on the log's checkpoint, each with `flags` added. */
async function runAll(flags: readonly string[]) {
  const checkpointFile = `${work.dir}/checkpoint.txt`;
  writeFileSync(checkpointFile, await (await fetch(`${front.url}/checkpoint`)).text());
  return {
    lookup: await proto(['verify', '--json', bundleFile, ...logFlags(), ...flags]),
    receipt: await proto(['verify', '--json', bundleFile, '--receipt', receiptFile, ...logFlags(), ...flags]),
    logVerify: await proto([
      'log',
      'verify',
      '--checkpoint',
      checkpointFile,
      '--key',
      log.verifierKey,
      ...flags,
    ]),
    prove: await proto([
      'log',
      'prove',
      '--tiles',
      front.url,
      '--index',
      '0',
      '--key',
      log.verifierKey,
      ...flags,
    ]),
    receiptVerify: await proto([
      'receipt',
      'verify',
      receiptFile,
      '--bundle-hash',
      bundleHash,
      ...logFlags(),
      ...flags,
    ]),
  };
}

const both = (text: string) => cosignatureLine(text, a) + cosignatureLine(text, b);

describe('witness quorum in the CLI (k = 2 of a, b, c)', () => {
  it('exits 0 from every command when two configured witnesses cosigned, and names them', async () => {
    front.setWitnessing(both);
    const runs = await runAll(WITNESS_FLAGS);
    for (const [name, run] of Object.entries(runs))
      expect(run.code, `${name}: ${run.stdout}${run.stderr}`).toBe(0);
    const named = 'cosigned by witness.test/a, witness.test/b (witness quorum 2)';
    expect(JSON.parse(runs.lookup.stdout)).toMatchObject({
      checks: { log_inclusion: 'pass' },
      warnings: [`log_inclusion: log checkpoint ${named}`],
    });
    expect(JSON.parse(runs.receipt.stdout)).toMatchObject({
      checks: { anchor: 'pass' },
      warnings: [`anchor_receipt: log checkpoint ${named}`],
    });
    const cosigned = { quorum: 2, cosigned: ['witness.test/a', 'witness.test/b'], refused: [] };
    expect(JSON.parse(runs.logVerify.stdout)).toMatchObject({ verified: true, witnesses: cosigned });
    expect(JSON.parse(runs.prove.stdout)).toMatchObject({ verified: true, checkpoint_witnesses: cosigned });
    expect(JSON.parse(runs.receiptVerify.stdout)).toMatchObject({ verified: true, witnesses: cosigned });
  });

  it.each<[string, Witnessing]>([
    ['k-1 cosignatures', (text) => cosignatureLine(text, c)],
    [
      'a cosignature by an unconfigured witness (not counted)',
      (text) => cosignatureLine(text, a) + cosignatureLine(text, stranger),
    ],
    [
      'the same witness twice (counted once)',
      (text) => cosignatureLine(text, a) + cosignatureLine(text, a, 1_790_000_009),
    ],
    [
      'a cosignature over another checkpoint of the same size (split view)',
      (text) => cosignatureLine(text, a) + cosignatureLine(forkedCheckpointText(text), b),
    ],
  ])('exits 1 from every command with %s, E103', async (_what, witnessing) => {
    front.setWitnessing(witnessing);
    const runs = await runAll(WITNESS_FLAGS);
    for (const [name, run] of Object.entries(runs)) {
      expect(run.code, `${name}: ${run.stdout}${run.stderr}`).toBe(1);
      expect(run.stdout, name).toContain('PROTO-E103');
    }
  });

  it('without --witness-key nothing changes: a checkpoint without cosignatures passes', async () => {
    front.setWitnessing(() => '');
    const runs = await runAll([]);
    for (const [name, run] of Object.entries(runs))
      expect(run.code, `${name}: ${run.stdout}${run.stderr}`).toBe(0);
  });

  it.each([
    [['--witness-key', a.vkey, '--witness-quorum', '2'], /between 1 and 1/],
    [['--witness-key', 'not-a-key'], /--witness-key/],
    [['--witness-key', LOG_STYLE_KEY], /type 0x04/],
    [['--witness-quorum', '1'], /needs --witness-key/],
    [
      ['--witness-key', a.vkey, '--witness-quorum', 'two'],
      /--witness-quorum must be a whole number from 1 to 999999/,
    ],
  ])('bad witness flags %j are bad usage (exit 2)', async (flags, message) => {
    front.setWitnessing(both);
    const run = await proto(['verify', '--json', bundleFile, ...logFlags(), ...flags]);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
