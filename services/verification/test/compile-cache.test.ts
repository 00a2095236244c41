// Node's compile cache as the real service sets it up (P119): in NODE_COMPILE_CACHE, which its verification
// threads share, or by default beside the code; a directory that cannot be created costs the cache, never
// the start.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_COMPILE_CACHE_DIR } from '@proto/service-kit/compile-cache';
import { waitFor } from '@proto/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleBundle, spawnService } from '../src/test-support.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'verification-compile-cache-'));
  dirs.push(dir);
  return dir;
}

/** The service on a free port with a minimal environment (no inherited NODE_COMPILE_CACHE), listening. */
async function start(env: Record<string, string>) {
  const { child, output, exit, listening } = spawnService({
    PORT: '0',
    LOG_LEVEL: 'debug',
    DATA_DIR: join(scratch(), 'data'),
    VERIFY_WORKERS: '1',
    ...env,
  });
  children.push(child);
  const address = await listening();
  return { child, address, output, exit };
}

async function verifies(address: string): Promise<boolean> {
  const res = await fetch(`${address}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signed_bundle: sampleBundle({ tier: 'standard', entries: 2 }).signed_bundle }),
  });
  return ((await res.json()) as { verified?: boolean }).verified === true;
}

/** Files under `dir`, recursively (the cache keeps one directory per Node version and flags). */
function cacheFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

const logLines = (text: string, msg: string) =>
  text.split('\n').filter((line) => line.includes(`"msg":"${msg}`));

describe('the compile cache of the verification service', () => {
  it('is written to NODE_COMPILE_CACHE by the service once it listens, and by a verification thread', async () => {
    const cache = join(scratch(), 'cache');
    const { child, address, output, exit } = await start({ NODE_COMPILE_CACHE: cache });
    const [on] = logLines(output(), 'compile cache on');
    expect(on).toContain(cache);
    // The main thread's modules, flushed once it listens (no thread has started yet: P71).
    const atListen = cacheFiles(cache).length;
    expect(atListen).toBeGreaterThan(20);
    expect(await verifies(address)).toBe(true);
    // The thread loaded modules the main thread never does (worker.ts first) and flushed them too.
    await waitFor(() => cacheFiles(cache).length > atListen, 10_000, 'the thread to write its modules');
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('starts and verifies when the directory cannot be created, saying so once', async () => {
    const file = join(scratch(), 'a-file');
    writeFileSync(file, 'not a directory');
    const { child, address, output, exit } = await start({ NODE_COMPILE_CACHE: join(file, 'cache') });
    expect(await verifies(address)).toBe(true);
    expect(await verifies(address)).toBe(true);
    const off = logLines(output(), 'compile cache off');
    expect(off).toHaveLength(1);
    expect(off[0]).toMatch(/"reason":"[^"]*not a directory/i);
    expect(logLines(output(), 'compile cache on')).toHaveLength(0);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('is on by default, beside the code, when NODE_COMPILE_CACHE is not set', async () => {
    const { child, address, output, exit } = await start({});
    const [on] = logLines(output(), 'compile cache on');
    expect(on).toContain(DEFAULT_COMPILE_CACHE_DIR);
    expect(cacheFiles(DEFAULT_COMPILE_CACHE_DIR).length).toBeGreaterThan(20);
    expect(await verifies(address)).toBe(true);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('stays off with NODE_DISABLE_COMPILE_CACHE, and still starts', async () => {
    const cache = join(scratch(), 'cache');
    const { child, address, output, exit } = await start({
      NODE_COMPILE_CACHE: cache,
      NODE_DISABLE_COMPILE_CACHE: '1',
    });
    expect(await verifies(address)).toBe(true);
    expect(logLines(output(), 'compile cache off')[0]).toContain('NODE_DISABLE_COMPILE_CACHE');
    expect(cacheFiles(cache)).toEqual([]);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
