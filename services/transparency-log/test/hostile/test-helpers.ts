// The real log listening on a port for the whole calling file, for tests that speak HTTP to it byte for byte.
// Named test-helpers.ts so the layer rules count it as test code.
import { listenOnPort0, type TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildTestLog, tempDataDir } from '../../src/test-support.ts';

/** A log in a fresh DATA_DIR (no timers), started before the file's tests and removed after; call inside a test. */
export function listeningLogForFile(
  label: string,
): () => { readonly app: FastifyInstance; readonly url: string } {
  let running: { app: FastifyInstance; url: string; close(): Promise<void> } | undefined;
  let temp: TempDir | undefined;
  beforeAll(async () => {
    temp = await tempDataDir(label);
    running = await listenOnPort0(await buildTestLog(temp.dir, {}, {}, { timers: false }));
  });
  afterAll(async () => {
    await running?.close();
    await temp?.remove();
  });
  return () => {
    if (running === undefined) throw new Error('the log did not start');
    return running;
  };
}
