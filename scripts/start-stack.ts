// Starts every service of the stack on its embedded defaults (SQLite under ./data, no external server),
// each as a child process with prefixed logs; Ctrl-C or SIGTERM stops them all gracefully.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The log's POST /add needs its operator token (issue 12 row h): the anchor service reads the token the
// log generates into its DATA_DIR, or takes OPERATOR_TOKEN's first entry when the environment sets one.
const sharedToken = process.env['OPERATOR_TOKEN']?.split(',')[0]?.trim();
const logToken: Record<string, string> = sharedToken
  ? { TL_TOKEN: sharedToken }
  : { TL_TOKEN_FILE: join(root, 'data', 'transparency-log', 'operator-token') };
// Embedded defaults per service: the anchor service anchors into the stack's own transparency log,
// and the verification service forwards POST /anchor to the anchor service.
const services: Array<{ name: string; port: number; env?: Record<string, string> }> = [
  { name: 'verification', port: 3000, env: { ANCHOR_SERVICE_URL: 'http://127.0.0.1:3001' } },
  { name: 'anchor', port: 3001, env: { TL_URL: 'http://127.0.0.1:3002', ...logToken } },
  { name: 'transparency-log', port: 3002 },
  { name: 'revocation', port: 3003 },
];

const children: ChildProcess[] = [];
let stopping = false;

function prefixLines(name: string, chunk: Buffer, out: NodeJS.WriteStream): void {
  for (const line of chunk.toString('utf8').split('\n')) {
    if (line.length > 0) out.write(`[${name}] ${line}\n`);
  }
}

for (const service of services) {
  const entry = join(root, 'services', service.name, 'src', 'main.ts');
  if (!existsSync(entry)) {
    process.stdout.write(`[stack] ${service.name}: not built yet (no ${entry}), skipped\n`);
    continue;
  }
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    env: {
      DATA_DIR: join(root, 'data', service.name),
      PORT: String(service.port),
      ...service.env,
      ...process.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => prefixLines(service.name, c, process.stdout));
  child.stderr?.on('data', (c: Buffer) => prefixLines(service.name, c, process.stderr));
  child.on('exit', (code, signal) => {
    process.stdout.write(`[stack] ${service.name} exited (${signal ?? code})\n`);
    if (!stopping) stopAll(code === 0 ? 0 : 1);
  });
  children.push(child);
  process.stdout.write(`[stack] ${service.name} starting on port ${service.port}\n`);
}

function stopAll(exitCode: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  const timer = setTimeout(() => process.exit(exitCode), 15_000);
  timer.unref();
  Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
  ).then(() => process.exit(exitCode));
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
