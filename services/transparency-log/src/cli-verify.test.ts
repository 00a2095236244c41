// `proto log verify` on material saved from the log, run as the real command (a child process), with no live
// call: checkpoint signatures, inclusion (JSON and C2SP tlog-proof), consistency. SPEC.md; DECISIONS D18.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { formatVerifierKey, noteVerifierKey, selectCryptoBackend } from '@proto/core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from './test-support.ts';

const CLI = fileURLToPath(new URL('../../../packages/cli/src/main.ts', import.meta.url));
const run = promisify(execFile);

async function proto(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('proto log verify', () => {
  let app: FastifyInstance;
  let data: { dir: string; remove: () => Promise<void> };
  const file = (name: string) => join(data.dir, name);
  let vkeys: string[];
  /** `proto log verify` of the saved checkpoint and keys, with bundle `index`'s hash and the proof in `proofFile`. */
  const verifyInclusion = (index: number, proofFile: string, more: string[] = []) =>
    proto([
      'log',
      'verify',
      '--checkpoint',
      file('signed.json'),
      '--key',
      file('keys.txt'),
      '--bundle-hash',
      bundleHash(index, 'cli'),
      '--proof',
      file(proofFile),
      ...more,
    ]);
  const addBundles = async (from: number, to: number) => {
    for (let i = from; i < to; i++)
      await app.inject({
        method: 'POST',
        url: '/add',
        payload: { bundle_hash: bundleHash(i, 'cli') },
        headers: OPERATOR_AUTH,
      });
  };

  beforeAll(async () => {
    data = await tempDataDir('cli');
    app = await buildTestLog(data.dir, {}, {}, { timers: false });
    await addBundles(0, 7);
    await app.transparencyLog.checkpointer.tick();
    await writeFile(file('old.checkpoint'), (await app.inject({ url: '/checkpoint' })).body);
    await addBundles(7, 13);
    await app.transparencyLog.checkpointer.tick();
    const signed = await app.inject({ url: '/root/signed' });
    vkeys = signed.json().verifier_keys;
    await writeFile(file('signed.json'), signed.body);
    await writeFile(file('keys.txt'), `${vkeys.join('\n')}\n`);
    await writeFile(file('proof.json'), (await app.inject({ url: '/proof/9?tree_size=13' })).body);
    await writeFile(file('proof-old-size.json'), (await app.inject({ url: '/proof/3?tree_size=7' })).body);
    await writeFile(file('proof.tlog-proof'), (await app.inject({ url: '/tlog-proof/4' })).body);
    await writeFile(
      file('consistency.json'),
      (await app.inject({ url: '/consistency?first=7&second=13' })).body,
    );
    await app.close();
  });
  afterAll(async () => {
    await data.remove();
  });

  it('verifies the checkpoint, an inclusion and the consistency with an older checkpoint (exit 0)', async () => {
    const result = await verifyInclusion(9, 'proof.json', [
      '--old-checkpoint',
      file('old.checkpoint'),
      '--consistency',
      file('consistency.json'),
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({
      verified: true,
      checkpoint: { origin: 'signed-bundles.local/log', tree_size: 13 },
      inclusion: { bundle_hash: bundleHash(9, 'cli'), log_index: 9, verified: true },
      consistency: { old_tree_size: 7, tree_size: 13, verified: true },
    });
    expect(out.checkpoint.signed_by.map((s: { alg: string }) => s.alg)).toEqual(['ed25519', 'ml-dsa-65']);
  });

  it('verifies a C2SP tlog-proof on its own, with the Ed25519 key alone', async () => {
    const result = await proto([
      'log',
      'verify',
      '--key',
      vkeys[0] as string,
      '--bundle-hash',
      bundleHash(4, 'cli'),
      '--proof',
      file('proof.tlog-proof'),
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ verified: true, inclusion: { log_index: 4 } });
  });

  it('reports a hash that is not at the index, or a proof for another size, as not verified (exit 1)', async () => {
    const wrong = await verifyInclusion(8, 'proof.json');
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ verified: false, error: { code: 'PROTO-E202' } });
    const size = await verifyInclusion(3, 'proof-old-size.json');
    expect(size.code).toBe(1);
    expect(JSON.parse(size.stdout).error.message).toMatch(/tree_size=13/);
  });

  it('refuses a checkpoint not signed by the given key (exit 1) and bad usage (exit 2)', async () => {
    // Same origin, another key: the note carries no signature from it (E103).
    const pair = selectCryptoBackend().generateKeyPair('ed25519');
    const key = noteVerifierKey('signed-bundles.local/log', 'ed25519', pair.publicKey);
    if (!key.ok) throw new Error(key.error.message);
    const other = await proto([
      'log',
      'verify',
      '--checkpoint',
      file('signed.json'),
      '--key',
      formatVerifierKey(key.value),
    ]);
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stdout)).toMatchObject({ verified: false, error: { code: 'PROTO-E103' } });
    const missing = await proto(['log', 'verify', '--checkpoint', file('signed.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--key/);
  });

  // P194: a proof file's log_index and tree_size are the user's input, not the log's word: one that is not a
  // non-negative safe integer is a bad file (exit 2, the field named), never a verdict and never silently ignored.
  const badCounts: [string, string][] = [
    ['-1', '-1'],
    ['1.5', '1.5'],
    ['1e300', '1e300'],
    ['2^53 + 1', '9007199254740993'],
    ['a string', '"9"'],
    ['null', 'null'],
  ];
  for (const field of ['log_index', 'tree_size'] as const) {
    for (const [what, literal] of badCounts) {
      it(`refuses a proof file whose ${field} is ${what}: bad input, exit 2`, async () => {
        const real = JSON.parse(await readFile(file('proof.json'), 'utf8')) as Record<string, unknown>;
        const { [field]: _dropped, ...rest } = real;
        const text = `${JSON.stringify(rest).slice(0, -1)},"${field}":${literal}}`;
        await writeFile(file(`bad-${field}.json`), text);
        const result = await verifyInclusion(9, `bad-${field}.json`);
        expect(result.code, result.stdout).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(new RegExp(field));
      });
    }
  }
});
