// Every whole-number option of the `proto` command goes through one parser (integer-option.ts) with its own
// range: a bad value is bad usage, exit 2 with the usage and `--NAME must be a whole number from MIN to MAX`,
// before any input is read or anything is asked of the network. Before, `receipt verify --min-confirmations 0`
// and `anchor deploy-contract --chain-id 0` or `--confirmations 0` went to the network, as did values past 2^53
// (`9007199254740993` became 9007199254740992), and `log prove --tree-size x` was refused only after the log had
// been asked for its checkpoint. The real CLI is spawned with the pinned Node against a local server that
// records what it is asked. P178.
import { writeFileSync } from 'node:fs';
import { signRevocationList } from '@proto/core';
import { sampleList, T0, testKey } from '@proto/core/testing';
import { answerJson, type HostileFront, startHostileFront, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as proto, writePendingEthereumReceipt } from './test-support.ts';

const work = tempDirSync('cli-integer-option');

/** Records every request and answers it at once with something no command can use. */
let server: HostileFront;
let url = '';
let mark = 0;
/** What the server was asked since the last `mark = server.hits()`. */
const asked = (): string[] =>
  server.requests.slice(mark).map((request) => `${request.method} ${request.url}`);

beforeAll(async () => {
  server = await startHostileFront((_request, response) => answerJson(response, 503, {}));
  url = server.url;
});
afterAll(async () => {
  await server.close();
  work.remove();
});

const { receiptFile, bundleHash } = writePendingEthereumReceipt(work.dir);
const listSigner = testKey(7);
const listFile = `${work.dir}/list.json`;
const signedList = signRevocationList(sampleList(), listSigner.secretKey);
if (!signedList.ok) throw new Error(signedList.error.message);
writeFileSync(listFile, JSON.stringify(signedList.value));

const SAFE_MAX = '9007199254740991';
/** Not a whole number in plain decimal, or past 2^53 - 1 (Number() would round 2^53 + 1 down). */
const MALFORMED = [
  '-1',
  '1.5',
  '1e3',
  '007',
  '0x10',
  ' 5',
  'ten',
  '',
  '9007199254740993',
  '99999999999999999999',
];

interface Case {
  readonly command: string;
  readonly option: string;
  readonly args: () => string[];
  readonly range: string;
  readonly outside: readonly string[];
}

const CASES: readonly Case[] = [
  {
    command: 'receipt verify',
    option: 'min-confirmations',
    args: () => [
      'receipt',
      'verify',
      receiptFile,
      '--bundle-hash',
      bundleHash,
      '--rpc',
      url,
      '--timeout',
      '5000',
    ],
    range: 'from 1 to 10000',
    outside: ['0', '10001'],
  },
  {
    command: 'anchor deploy-contract',
    option: 'chain-id',
    args: () => ['anchor', 'deploy-contract', '--rpc', url, '--key', 'ab'.repeat(32), '--timeout', '5000'],
    range: `from 1 to ${SAFE_MAX}`,
    outside: ['0'],
  },
  {
    command: 'anchor deploy-contract',
    option: 'confirmations',
    args: () => ['anchor', 'deploy-contract', '--rpc', url, '--key', 'ab'.repeat(32), '--timeout', '5000'],
    range: 'from 1 to 10000',
    outside: ['0', '10001'],
  },
  {
    command: 'log prove',
    option: 'tree-size',
    args: () => ['log', 'prove', '--tiles', url, '--index', '0', '--timeout', '5000'],
    range: `from 1 to ${SAFE_MAX}`,
    outside: ['0'],
  },
  {
    command: 'log prove',
    option: 'index',
    args: () => ['log', 'prove', '--tiles', url, '--timeout', '5000'],
    range: `from 0 to ${SAFE_MAX}`,
    outside: [],
  },
  {
    command: 'revocation verify',
    option: 'min-list-number',
    args: () => [
      'revocation',
      'verify',
      listFile,
      '--key',
      listSigner.publicKeyB64,
      '--at',
      T0.toISOString(),
    ],
    range: `from 0 to ${SAFE_MAX}`,
    outside: [],
  },
];

describe('a whole-number option outside its range is bad usage: exit 2, nothing asked', {
  timeout: 300_000,
}, () => {
  for (const c of CASES) {
    it(`${c.command} --${c.option} (${c.range})`, async () => {
      mark = server.hits();
      // One at a time: the machine running the tests may have few cores.
      for (const value of [...c.outside, ...MALFORMED]) {
        const run = await proto([...c.args(), `--${c.option}`, value]);
        expect(run.code, `${JSON.stringify(value)}: ${run.stdout}${run.stderr}`).toBe(2);
        expect(run.stderr, value).toContain(`--${c.option} must be a whole number ${c.range}`);
        expect(run.stderr, value).toContain('Usage:');
        expect(run.stderr, value).not.toMatch(/\n\s+at /);
      }
      expect(asked()).toEqual([]);
    });
  }
});

describe('a value inside the range is taken', { timeout: 120_000 }, () => {
  it('receipt verify --min-confirmations 1 and 10000 ask the node', async () => {
    for (const value of ['1', '10000']) {
      mark = server.hits();
      const run = await proto([...CASES[0]!.args(), '--min-confirmations', value]);
      expect(run.code, run.stderr).not.toBe(2);
      expect(asked().length, value).toBeGreaterThan(0);
    }
  });

  it(`deploy-contract --chain-id ${SAFE_MAX} asks the node`, async () => {
    mark = server.hits();
    const run = await proto([...CASES[1]!.args(), '--chain-id', SAFE_MAX, '--confirmations', '10000']);
    expect(run.code, run.stderr).toBe(3);
    expect(asked().length).toBeGreaterThan(0);
  });

  it('revocation verify --min-list-number 0 and the list number itself verify', async () => {
    for (const value of ['0', '7']) {
      const run = await proto([...CASES[5]!.args(), '--min-list-number', value]);
      expect(run.code, `${value}: ${run.stderr}`).toBe(0);
    }
    const rollback = await proto([...CASES[5]!.args(), '--min-list-number', '8']);
    expect(rollback.code).toBe(1);
  });
});

describe('help names each range', { timeout: 60_000 }, () => {
  it.each([
    [['receipt', 'verify', '--help'], /--min-confirmations <N>\s+confirmations required to pass, 1 to 10000/],
    [['anchor', 'deploy-contract', '--help'], /--confirmations <N>\s+blocks to wait for, 1 to 10000/],
    [['anchor', 'deploy-contract', '--help'], /--chain-id <N>[\s\S]*1 to 9007199254740991/],
  ])('%j', async (args, pattern) => {
    const run = await proto(args);
    expect(run.stdout + run.stderr).toMatch(pattern);
  });
});
