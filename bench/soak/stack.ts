// The soak's stack: the four services as child processes on free loopback ports, each on its own fresh
// PostgreSQL database and Redis (the soak's own servers, dependencies.ts), killable with SIGKILL and restartable (issue 16 item 5).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@proto/testing';
import { IMAGE_NODE_OPTIONS } from '../image-env.ts';

export const SERVICE_NAMES = ['transparency-log', 'anchor', 'revocation', 'verification'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The URL of `database` on the soak's own PostgreSQL server. */
function databaseUrl(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

function psql(base: string, sql: string): void {
  execFileSync('psql', [databaseUrl(base, 'postgres'), '-v', 'ON_ERROR_STOP=1', '-q', '-c', sql], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

export interface Service {
  readonly name: ServiceName;
  readonly port: number;
  readonly url: string;
  env: Record<string, string>;
  child?: ChildProcess;
  /** Set while the soak holds the service down on purpose. */
  down: boolean;
  restarts: number;
}

export class Stack {
  readonly services = new Map<ServiceName, Service>();
  readonly operatorToken = randomBytes(24).toString('hex');
  /** Exits nobody asked for (a crash): the soak restarts the service, as a supervisor would, and fails. */
  readonly crashes: Array<{ name: ServiceName; at: Date; how: string }> = [];
  private readonly databases: string[] = [];
  private stopping = false;

  readonly workDir: string;
  readonly postgresUrl: string;
  readonly redisUrl: string;

  constructor(workDir: string, postgresUrl: string, redisUrl: string) {
    this.workDir = workDir;
    this.postgresUrl = postgresUrl;
    this.redisUrl = redisUrl;
  }

  url(name: ServiceName): string {
    return this.services.get(name)!.url;
  }

  /** Fresh databases and ports; the log first (the anchor service writes to it), verification last. */
  async prepare(): Promise<void> {
    const tag = `soak_${process.pid}_${Date.now().toString(36)}`;
    for (const name of SERVICE_NAMES) {
      const database = `${tag}_${name.replace(/-/g, '_')}`;
      psql(this.postgresUrl, `CREATE DATABASE ${database}`);
      this.databases.push(database);
      const port = await freePort();
      const dataDir = join(this.workDir, name);
      mkdirSync(dataDir, { recursive: true });
      this.services.set(name, {
        name,
        port,
        url: `http://127.0.0.1:${port}`,
        down: false,
        restarts: 0,
        env: {
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
          DATABASE_URL: databaseUrl(this.postgresUrl, database),
          REDIS_URL: this.redisUrl,
          OPERATOR_TOKEN: this.operatorToken,
          // As deployed (docs/operations.md): a restarted service loads its modules from the cache.
          NODE_COMPILE_CACHE: join(this.workDir, 'compile-cache'),
          NODE_OPTIONS: IMAGE_NODE_OPTIONS,
        },
      });
    }
    Object.assign(this.services.get('transparency-log')!.env, {
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      CHECKPOINT_INTERVAL_MS: '1000',
    });
    Object.assign(this.services.get('anchor')!.env, {
      TL_URL: this.url('transparency-log'),
      TL_TOKEN: this.operatorToken,
      BATCH_INTERVAL_MS: '1000',
    });
    Object.assign(this.services.get('revocation')!.env, { JURISDICTION: 'US' });
    Object.assign(this.services.get('verification')!.env, {
      VERIFY_WORKERS: '1',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      V2_RATE_LIMIT_PER_MINUTE: '0',
      STORE_MAX_ENTRIES: '10000000',
      ANCHOR_SERVICE_URL: this.url('anchor'),
    });
  }

  start(name: ServiceName): void {
    const service = this.services.get(name)!;
    const log = createWriteStream(join(this.workDir, `${name}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [join(ROOT, 'services', name, 'src', 'main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...service.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    service.child = child;
    service.down = false;
    child.on('exit', (code, signal) => {
      if (service.down || this.stopping || service.child !== child) return;
      this.crashes.push({ name, at: new Date(), how: signal ?? `exit code ${code}` });
      process.stdout.write(`[soak] ${name} exited on its own (${signal ?? code}): restarting it\n`);
      service.restarts++;
      setTimeout(() => {
        if (!this.stopping) this.start(name);
      }, 1000);
    });
  }

  /** Resolves once GET /health answers 200 (up to `timeoutMs`). */
  async waitHealthy(name: ServiceName, timeoutMs = 60_000): Promise<void> {
    // A refused connection: not listening yet.
    const healthy = () =>
      fetch(`${this.url(name)}/health`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.ok,
        () => false,
      );
    await waitFor(healthy, timeoutMs, `${name} to become healthy (log: ${this.workDir}/${name}.log)`, 250);
  }

  /** kill -9: no shutdown hook runs, exactly like a crashed or OOM-killed process. */
  async kill9(name: ServiceName): Promise<void> {
    const service = this.services.get(name)!;
    const child = service.child;
    service.down = true;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async restart(name: ServiceName): Promise<void> {
    this.services.get(name)!.restarts++;
    this.start(name);
    await this.waitHealthy(name);
  }

  pid(name: ServiceName): number | undefined {
    const child = this.services.get(name)!.child;
    return child?.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  /** The verification service's wiring to the stack's own revocation list and log (as `pnpm start` does). */
  async wireVerification(): Promise<void> {
    const health = (await (await fetch(`${this.url('revocation')}/health`)).json()) as Record<
      string,
      unknown
    >;
    const signed = (await (await fetch(`${this.url('transparency-log')}/root/signed`)).json()) as Record<
      string,
      unknown
    >;
    const key = health['revocation_public_key_b64'];
    if (typeof key !== 'string') throw new Error('the revocation service names no list key in /health');
    Object.assign(this.services.get('verification')!.env, {
      REVOCATION_SOURCES: JSON.stringify({
        US: { url: `${this.url('revocation')}/.well-known/proto-revocations.json`, keys: [key] },
      }),
      ANCHOR_VERIFY_LOG_URL: this.url('transparency-log'),
      ANCHOR_VERIFY_LOG_KEY: (signed['verifier_keys'] as string[]).join(','),
    });
  }

  /** On an interrupt: nothing of the soak may outlive it. */
  killAllNow(): void {
    for (const service of this.services.values()) service.child?.kill('SIGKILL');
  }

  async stopAll(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await Promise.all(
      [...this.services.values()].map(async (service) => {
        const child = service.child;
        if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  /** Cuts every PostgreSQL connection of the services' databases (the server stays up). */
  terminateConnections(): void {
    const names = this.databases.map((d) => `'${d}'`).join(',');
    psql(
      this.postgresUrl,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname IN (${names})`,
    );
  }
}
