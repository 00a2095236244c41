// The real service as a child process, killed with SIGKILL in a burst of concurrent appends and restarted:
// every acknowledged index holds its leaf, and the tree extends every checkpoint issued before the kill. D18.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type NoteVerifierKey,
  openLogCheckpoint,
  parseVerifierKey,
  verifyTlogConsistency,
} from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPARENCY_LOG_ENV } from './config.ts';
import { bundleHash, OPERATOR_AUTH, TEST_OPERATOR_TOKEN, tempDataDir } from './test-support.ts';

const MAIN = join(fileURLToPath(new URL('.', import.meta.url)), 'main.ts');

interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<number | null>;
}

/** Starts main.ts and resolves with its address once it logs that it listens. */
function startService(env: Record<string, string>): Promise<Running> {
  // Only what this test sets: an inherited DATABASE_URL (or key, token…) would change which log starts.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !(name in TRANSPARENCY_LOG_ENV) && name !== 'TEST_DATABASE_URL',
    ),
  );
  const child = spawn(process.execPath, [MAIN], {
    env: { ...inherited, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`service did not start: ${stderr}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (;;) {
        const newline = buffered.indexOf('\n');
        if (newline < 0) break;
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          const entry = JSON.parse(line) as { address?: string };
          if (typeof entry.address === 'string') {
            clearTimeout(timer);
            resolve({ child, url: entry.address, exited });
          }
        } catch {
          // not a JSON log line
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening: ${stderr}`));
    });
  });
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

describe.each(dialectsUnderTest())('crash and restart on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'tlog-crash');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('loses no acknowledged leaf and stays consistent with every checkpoint issued before SIGKILL', async () => {
    const data = await tempDataDir('crash');
    const storeEnv: Record<string, string> =
      dialect === 'postgres'
        ? {
            DATABASE_URL: target.options.databaseUrl as string,
            DATABASE_SCHEMA: target.options.pgSchema as string,
          }
        : {};
    const env = {
      DATA_DIR: data.dir,
      CHECKPOINT_INTERVAL_MS: '40',
      BATCH_WAIT_MS: '2',
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      ...storeEnv,
    };
    let running = await startService(env);
    try {
      const keysBefore = (await getJson(`${running.url}/root/signed`))['verifier_keys'] as string[];
      const acknowledged = new Map<string, number>();
      const notes = new Set<string>();
      let killed = false;

      // Collect checkpoints as a monitor would, until the kill.
      const monitor = (async () => {
        while (!killed) {
          try {
            const res = await fetch(`${running.url}/checkpoint`);
            if (res.ok) notes.add(await res.text());
          } catch {
            // the service is gone
          }
          await new Promise((r) => setTimeout(r, 15));
        }
      })();

      const total = 4000;
      let next = 0;
      const url = running.url;
      const worker = async () => {
        while (next < total && !killed) {
          const hash = bundleHash(next++, `crash-${dialect}`);
          try {
            const res = await fetch(`${url}/add`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...OPERATOR_AUTH },
              body: JSON.stringify({ bundle_hash: hash }),
            });
            if (res.status === 201 || res.status === 200) {
              acknowledged.set(hash, ((await res.json()) as { log_index: number }).log_index);
            }
          } catch {
            // refused or reset by the kill: not acknowledged
          }
        }
      };
      const workers = Array.from({ length: 64 }, worker);
      // Kill in the middle of the burst, once checkpoints and acknowledgements have piled up.
      while (acknowledged.size < 800 || notes.size < 3) await new Promise((r) => setTimeout(r, 5));
      running.child.kill('SIGKILL');
      killed = true;
      await running.exited;
      await Promise.all([...workers, monitor]);
      expect(acknowledged.size).toBeGreaterThanOrEqual(800);
      expect(acknowledged.size, 'the kill interrupted the burst').toBeLessThan(total);

      running = await startService(env);
      const root = await getJson(`${running.url}/root`);
      const size = root['tree_size'] as number;
      expect(size).toBeGreaterThanOrEqual(acknowledged.size);

      // Every acknowledged index holds its leaf; no hash appears twice.
      const byIndex: string[] = [];
      for (let start = 0; start < size; start += 1000) {
        const page = await getJson(`${running.url}/entries?start=${start}&end=${start + 1000}`);
        for (const entry of page['entries'] as Array<{ log_index: number; bundle_hash: string }>) {
          byIndex[entry.log_index] = entry.bundle_hash;
        }
      }
      expect(byIndex.length).toBe(size);
      expect(new Set(byIndex).size).toBe(size);
      for (const [hash, index] of acknowledged) expect(byIndex[index], `index ${index}`).toBe(hash);

      // The restarted log signs with the same keys and extends every checkpoint seen before the kill.
      let signed = await getJson(`${running.url}/root/signed`);
      for (let i = 0; i < 100 && signed['tree_size'] !== size; i++) {
        await new Promise((r) => setTimeout(r, 20));
        signed = await getJson(`${running.url}/root/signed`);
      }
      expect(signed['verifier_keys']).toEqual(keysBefore);
      const keys: NoteVerifierKey[] = keysBefore.map((vkey) => {
        const key = parseVerifierKey(vkey);
        if (!key.ok) throw new Error(key.error.message);
        return key.value;
      });
      const latest = openLogCheckpoint(signed['checkpoint'], keys);
      if (!latest.ok) throw new Error(latest.error.message);
      expect(latest.value.size).toBe(size);
      expect(notes.size).toBeGreaterThanOrEqual(3);
      for (const note of notes) {
        const old = openLogCheckpoint(note, keys);
        if (!old.ok) throw new Error(old.error.message);
        const proof = await getJson(`${running.url}/consistency?first=${old.value.size}&second=${size}`);
        expect(
          verifyTlogConsistency(old.value, latest.value, proof['proof'] as string[]).ok,
          `from ${old.value.size}`,
        ).toBe(true);
      }
      // A graceful stop (SIGTERM) drains and exits 0.
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    } finally {
      running.child.kill('SIGKILL');
      await running.exited;
      await data.remove();
    }
  });
});
