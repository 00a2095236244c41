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
// and the verification service forwards POST /anchor to the anchor service. The verification service
// starts last: it is wired to the stack's own revocation list and log (issue 17), whose keys exist only
// once those services have started (they generate them into DATA_DIR on first start).
const services: Array<{ name: string; port: number; env?: Record<string, string> }> = [
  { name: 'anchor', port: 3001, env: { TL_URL: 'http://127.0.0.1:3002', ...logToken } },
  { name: 'transparency-log', port: 3002 },
  // Sample bundles (`proto build`) name jurisdiction US: the stack's own list is that jurisdiction's.
  { name: 'revocation', port: 3003, env: { JURISDICTION: 'US' } },
];
const verification = {
  name: 'verification',
  port: 3000,
  env: { ANCHOR_SERVICE_URL: 'http://127.0.0.1:3001' } as Record<string, string>,
};
// The witness cosigns the stack's own log: it starts once the log's verifier keys are known. The log then
// restarts with the witness's key (LOG_WITNESSES, quorum 1): each side's key exists only after its own first
// start, so one of the two has to start twice (P55). The verification service starts last and requires it.
const witness = { name: 'witness', port: 3004 };
const WITNESS_URL = 'http://127.0.0.1:3004';

const children: ChildProcess[] = [];
/** Children stopped on purpose to start again (the log, once the witness's key is known). */
const restarting = new Set<ChildProcess>();
let stopping = false;

function prefixLines(name: string, chunk: Buffer, out: NodeJS.WriteStream): void {
  for (const line of chunk.toString('utf8').split('\n')) {
    if (line.length > 0) out.write(`[${name}] ${line}\n`);
  }
}

function startService(service: {
  name: string;
  port: number;
  env?: Record<string, string>;
}): ChildProcess | undefined {
  const entry = join(root, 'services', service.name, 'src', 'main.ts');
  if (!existsSync(entry)) {
    process.stdout.write(`[stack] ${service.name}: not built yet (no ${entry}), skipped\n`);
    return undefined;
  }
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    env: {
      DATA_DIR: join(root, 'data', service.name),
      PORT: String(service.port),
      // Stripped TypeScript cached across starts: about 20 MB less RSS per service from the second start.
      NODE_COMPILE_CACHE: join(root, 'node_modules', '.cache', 'node-compile'),
      // A small young generation per isolate (as the image; docs/operations.md, Memory).
      NODE_OPTIONS: '--max-semi-space-size=4',
      ...service.env,
      ...process.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => prefixLines(service.name, c, process.stdout));
  child.stderr?.on('data', (c: Buffer) => prefixLines(service.name, c, process.stderr));
  child.on('exit', (code, signal) => {
    process.stdout.write(`[stack] ${service.name} exited (${signal ?? code})\n`);
    if (restarting.delete(child)) return;
    if (!stopping) stopAll(code === 0 ? 0 : 1);
  });
  children.push(child);
  process.stdout.write(`[stack] ${service.name} starting on port ${service.port}\n`);
  return child;
}

/** Stops `child` gracefully and starts `service` again in its place (its exit does not stop the stack). */
async function restartService(
  child: ChildProcess,
  service: { name: string; port: number; env?: Record<string, string> },
): Promise<void> {
  restarting.add(child);
  const exited = new Promise((resolve) =>
    child.exitCode !== null ? resolve(null) : child.once('exit', resolve),
  );
  child.kill('SIGTERM');
  await exited;
  children.splice(children.indexOf(child), 1);
  if (!stopping) startService(service);
}

/**
 * Reads `url` with `read`, retrying every 250 ms while the service starts (up to ~30 s, or until the stack
 * stops); undefined if it never answers with a 2xx.
 */
async function whenAnswering<T>(
  url: string,
  read: (response: Response) => Promise<T>,
): Promise<T | undefined> {
  for (let attempt = 0; attempt < 120 && !stopping; attempt++) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return await read(response);
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return undefined;
}

/** The witness's vkey from GET /witness/key once it is up (it generates its key on first start). */
const witnessKey = () =>
  whenAnswering(`${WITNESS_URL}/witness/key`, async (response) => (await response.text()).trim());

/** A JSON document from a service once it answers. */
const waitForJson = (url: string) =>
  whenAnswering(url, async (response) => (await response.json()) as Record<string, unknown>);

/**
 * The verification service's view of the stack: REVOCATION_SOURCES from the revocation service's
 * /health (jurisdiction, list key), ANCHOR_VERIFY_LOG_URL/KEY from the log's signed checkpoint.
 * Variables the user set win; a service that does not answer is left out (its check stays skipped).
 */
async function stackWiring(): Promise<{ env: Record<string, string>; logVkeys: string[] }> {
  const env: Record<string, string> = {};
  const revocation = 'http://127.0.0.1:3003';
  const log = 'http://127.0.0.1:3002';
  const [health, signed] = await Promise.all([
    waitForJson(`${revocation}/health`),
    waitForJson(`${log}/root/signed`),
  ]);
  const key = health?.['revocation_public_key_b64'];
  const jurisdiction = health?.['jurisdiction'];
  if (typeof key === 'string' && typeof jurisdiction === 'string') {
    const short = health?.['profile'] === 'dcp-ai' ? 'dcp' : 'proto';
    env['REVOCATION_SOURCES'] = JSON.stringify({
      [jurisdiction]: { url: `${revocation}/.well-known/${short}-revocations.json`, keys: [key] },
    });
  } else {
    process.stdout.write('[stack] revocation service did not answer: revocation checks stay skipped\n');
  }
  const vkeys = signed?.['verifier_keys'];
  if (Array.isArray(vkeys) && vkeys.length > 0) {
    env['ANCHOR_VERIFY_LOG_URL'] = log;
    env['ANCHOR_VERIFY_LOG_KEY'] = vkeys.join(',');
  } else {
    process.stdout.write('[stack] transparency log did not answer: log receipts stay unchecked\n');
  }
  return { env, logVkeys: Array.isArray(vkeys) ? vkeys.map(String) : [] };
}

const logService = services.find((s) => s.name === 'transparency-log');
const started = new Map(services.map((service) => [service.name, startService(service)]));
stackWiring().then(async ({ env, logVkeys }) => {
  if (stopping) return;
  const log = started.get('transparency-log');
  if (logVkeys.length > 0 && startService({ ...witness, env: { WITNESS_LOGS: logVkeys.join(' ') } })) {
    const key = await witnessKey();
    if (stopping) return;
    if (key !== undefined && log !== undefined && logService !== undefined) {
      process.stdout.write(
        '[stack] restarting the transparency log with the witness (LOG_WITNESSES, quorum 1)\n',
      );
      await restartService(log, {
        ...logService,
        env: { LOG_WITNESSES: `${WITNESS_URL} ${key}`, LOG_WITNESS_QUORUM: '1' },
      });
      env['ANCHOR_VERIFY_WITNESS_KEYS'] = key;
      env['ANCHOR_VERIFY_WITNESS_QUORUM'] = '1';
    } else {
      process.stdout.write('[stack] witness did not answer: the log runs without witnesses\n');
    }
  }
  if (stopping) return;
  startService({ ...verification, env: { ...verification.env, ...env } });
  process.stdout.write(
    '[stack] console: open http://localhost:3000/ (log: :3002/, revocation list: :3003/, witness: :3004/docs)\n',
  );
});

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
