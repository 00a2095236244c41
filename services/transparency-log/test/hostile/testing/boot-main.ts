// The log's real main.ts started with a configuration, for the tests of what it refuses at boot (P196, P541).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootMain } from '@proto/testing';
import { TRANSPARENCY_LOG_ENV } from '../../../src/config.ts';

const MAIN = join(fileURLToPath(new URL('../../../src/', import.meta.url)), 'main.ts');

/** The log's main.ts with `env`: its exit code and everything it wrote, once it exits or listens. */
export function boot(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !(name in TRANSPARENCY_LOG_ENV) && name !== 'TEST_DATABASE_URL',
    ),
  );
  return bootMain(
    MAIN,
    { ...inherited, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    // Listening means the URL was accepted: stop it and report it as running (code null).
    { stopWhen: (output) => output.includes('"address"'), stopSignal: 'SIGKILL' },
  );
}
