// The profile categoriser on a small hand-made .cpuprofile (bench/fixtures/categories.cpuprofile): each
// sample lands in the category an operator would name, built-ins and byte helpers count for their
// caller, and profile-summary prints the shares and ms per bundle from it. Issue 14, P87.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { accountProfile, type CpuProfile, categoryOfStack, threadOfFile } from './profile-categories.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/categories.cpuprofile', import.meta.url));
const SUMMARY = fileURLToPath(new URL('./profile-summary.ts', import.meta.url));
const profile = JSON.parse(readFileSync(FIXTURE, 'utf8')) as CpuProfile;

describe('profile categories', () => {
  it('puts every sampled microsecond of the fixture where an operator would look for it', () => {
    const account = accountProfile(profile);
    expect(account.totalUs).toBe(3790);
    expect(Object.fromEntries(account.byCategory)).toEqual({
      signatures: 1500,
      idle: 700, // (idle) and piscina's atomicsWaitLoop
      other: 260, // (program) and an npm package no rule names
      GC: 200,
      'service code, other': 160,
      'start-up (load, compile)': 140, // WebAssembly run by amaro's loader
      'HTTP/socket': 130,
      logging: 120,
      'pool messaging': 110,
      CBOR: 90,
      'JSON parse/stringify': 85, // a RegExp built-in counts for strict JSON, its caller
      canonicalisation: 75, // TextEncoder called by the canonicaliser…
      'engine, other': 70, // a byte helper called by the engine's pipeline
      'schema (ajv)': 60,
      hashing: 50, // …and TextEncoder called by the hasher
      base64: 40,
    });
  });

  it('reads a stack from the leaf up: the nearest frame a rule names decides', () => {
    const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
    const serialize = frame('quote', 'file:///a/packages/core/src/canonical/serialize.ts');
    const hash = frame('update', 'node:internal/crypto/hash');
    expect(categoryOfStack([frame('encode', 'node:internal/encoding'), serialize, hash])).toBe(
      'canonicalisation',
    );
    expect(categoryOfStack([frame('encode', 'node:internal/encoding'), hash, serialize])).toBe('hashing');
    expect(categoryOfStack([frame('(program)')])).toBe('other');
    expect(categoryOfStack([])).toBe('other');
  });

  it('names the thread from the file name node --cpu-prof gives it', () => {
    expect(threadOfFile('CPU.20261126.083550.15708.0.001.cpuprofile')).toEqual({
      pid: '15708',
      thread: 'main',
    });
    expect(threadOfFile('CPU.20261126.083603.15708.2.003.cpuprofile')).toEqual({
      pid: '15708',
      thread: 'worker 2',
    });
    expect(threadOfFile('notes.txt')).toBeUndefined();
  });

  it('prints each category as a share of the thread and in ms per bundle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'profile-summary-'));
    try {
      copyFileSync(FIXTURE, join(dir, 'CPU.20261126.083603.4242.1.002.cpuprofile'));
      const out = execFileSync(process.execPath, [SUMMARY, dir, '5', '--requests=2'], { encoding: 'utf8' });
      expect(out).toContain('=== process 4242, 2 bundles');
      // 1,500 µs of 3,790: 39.6 %, 0.750 ms for each of 2 bundles.
      expect(out).toMatch(/^ {2}signatures +39\.6 % +0\.750 ms\/bundle$/m);
      expect(out).toMatch(/^worker 1: 0\.0 s sampled, busy +81\.5 %$/m);
      expect(out).toMatch(/verifyOneShot node:internal\/crypto\/sig:1 +\[signatures\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
