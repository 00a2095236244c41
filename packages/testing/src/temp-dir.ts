// Temporary directories for tests (DATA_DIR of a service, a store file, CLI output), removed by the caller.
// docs/architecture.md §6 (tests next to the code, real stores instead of mocks).
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  readonly dir: string;
  /** Removes the directory and everything in it; safe to call twice. */
  remove(): Promise<void>;
}

/** A fresh directory `<tmp>/proto-<label>-XXXXXX`. */
export async function tempDir(label: string): Promise<TempDir> {
  const dir = await mkdtemp(join(tmpdir(), `proto-${label}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The same, synchronously, for set-up code that cannot await. */
export function tempDirSync(label: string): { readonly dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `proto-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
