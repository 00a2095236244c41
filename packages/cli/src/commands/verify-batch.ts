// `proto verify --batch DIR|FILE…`: verifies many bundles on all cores with the engine of POST /verify
// and prints one NDJSON line per file, in argument order. Issue 14 item 3.
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CliError, type CliIo, EXIT_NOT_VERIFIED, EXIT_OK } from '../io.ts';
import type { BatchWorkerSetup } from './verify-batch-worker.ts';

const WORKER_FILE = new URL('./verify-batch-worker.ts', import.meta.url);

interface BatchFile {
  readonly file: string;
  /** Listed from a directory, not named by the user: read only as a regular file (P527). */
  readonly fromDirectory: boolean;
}

/** A directory stands for its *.json files (not recursive), sorted by name. */
function filesOf(sources: readonly string[]): BatchFile[] {
  const files: BatchFile[] = [];
  for (const source of sources) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(source).isDirectory();
    } catch {
      throw new CliError(`${source}: no such file or directory`);
    }
    if (!isDirectory) files.push({ file: source, fromDirectory: false });
    else {
      for (const name of readdirSync(source)
        .filter((n) => n.endsWith('.json'))
        .sort()) {
        files.push({ file: path.join(source, name), fromDirectory: true });
      }
    }
  }
  if (files.length === 0) throw new CliError('--batch: no bundle files found');
  return files;
}

export async function verifyBatch(
  sources: readonly string[],
  setup: BatchWorkerSetup,
  io: CliIo,
): Promise<number> {
  const files = filesOf(sources);
  const threads = Math.max(1, Math.min(availableParallelism(), files.length));
  const results: ({ line: string; verified: boolean } | undefined)[] = new Array(files.length);
  let next = 0;
  let printed = 0;
  let allVerified = true;
  const workers = Array.from({ length: threads }, () => new Worker(WORKER_FILE, { workerData: setup }));
  try {
    await new Promise<void>((resolve, reject) => {
      const feed = (worker: Worker) => {
        if (next < files.length) {
          worker.postMessage({ index: next, ...files[next] });
          next++;
        }
      };
      for (const worker of workers) {
        worker.on('error', reject);
        worker.on('message', (done: { index: number; line: string; verified: boolean }) => {
          results[done.index] = done;
          feed(worker);
          // Lines go out in argument order, as soon as every earlier one is done.
          while (printed < files.length && results[printed] !== undefined) {
            const result = results[printed]!;
            io.stdout(`${result.line}\n`);
            if (!result.verified) allVerified = false;
            results[printed] = undefined;
            printed++;
          }
          if (printed === files.length) resolve();
        });
        feed(worker);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return allVerified ? EXIT_OK : EXIT_NOT_VERIFIED;
}
