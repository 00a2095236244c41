// runService in a real process: a port already taken must read as a failed start in the log, not as the
// end of a graceful shutdown (an operator grepping for "shutdown complete" would think it had run).
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const module = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** A minimal service through the same runService every service's main.ts calls. */
const ENTRY = `
import { loadConfig, SHARED_ENV_PROPERTIES } from ${JSON.stringify(module('./config.ts'))};
import { runService } from ${JSON.stringify(module('./run.ts'))};
import { createService } from ${JSON.stringify(module('./service.ts'))};
await runService(
  () => createService({ name: 'taken', version: '0.0.0', config: loadConfig(SHARED_ENV_PROPERTIES), rateLimit: false }),
  { name: 'taken' },
);
`;

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function takenPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

function runOn(port: number): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  const child = spawn(process.execPath, ['--input-type=module', '--eval', ENTRY], {
    env: { PATH: process.env['PATH'] ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  child.stdout.on('data', (chunk) => {
    text += String(chunk);
  });
  return new Promise((resolve) =>
    child.on('close', (code) =>
      resolve({
        code,
        lines: text
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      }),
    ),
  );
}

describe('runService on a port already taken', () => {
  it('exits 1 with a "listen failed" error line naming EADDRINUSE, and no "shutdown complete"', async () => {
    const port = await takenPort();
    const { code, lines } = await runOn(port);
    expect(code).toBe(1);
    const last = lines.at(-1);
    expect(last?.['level']).toBe(50);
    expect(last?.['msg']).toBe(`listen failed on 127.0.0.1:${port} (EADDRINUSE): exiting`);
    expect((last?.['err'] as { code?: string } | undefined)?.code).toBe('EADDRINUSE');
    expect(lines.map((line) => line['msg'])).not.toContain('shutdown complete');
  }, 30_000);
});
