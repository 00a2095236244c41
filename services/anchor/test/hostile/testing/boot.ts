// The anchor service's main.ts as a child process, for the tests of what stops its boot (P481, P487, P521): its exit
// code and all it printed.
import { fileURLToPath } from 'node:url';
import { bootEnv, bootMain } from '@proto/testing';

const MAIN = fileURLToPath(new URL('../../../src/main.ts', import.meta.url));

/** Runs main.ts with `env` until it exits (killed after `killAfterMs`; the code is then null). */
export async function bootAnchor(
  env: Record<string, string>,
  killAfterMs = 30_000,
): Promise<{ code: number | null; output: string }> {
  const { code, output } = await bootMain(
    MAIN,
    {
      ...bootEnv('anchor-boot-'),
      OPERATOR_TOKEN: 'operator-token-for-tests-0123456789',
      ...env,
    },
    { killAfterMs },
  );
  return { code, output };
}
