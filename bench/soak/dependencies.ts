// The soak's own PostgreSQL cluster and Redis server, on free loopback ports under its work dir, so that its
// faults (stop -m immediate, shutdown nosave) hit nothing but the soak: the machine's shared PostgreSQL and
// Redis are never touched (issue 16 item 5; safe to run in CI and beside other people's tests).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitFor } from '@proto/testing';

function succeeds(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** The newest PostgreSQL server binaries of the machine (Debian keeps them out of PATH). */
function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  return ''; // initdb and pg_ctl from PATH
}

/**
 * A throwaway cluster (initdb, trust auth on loopback only). fsync off: its faults kill processes, never
 * the machine, so written WAL survives in the page cache; synchronous_commit stays on, since an acknowledged
 * commit must be in the WAL when `stop -m immediate` comes (the soak checks that no acknowledged write is lost). PostgreSQL refuses to run as root, so as root (CI) the cluster is owned
 * by and run as the `postgres` user.
 */
export class OwnPostgres {
  readonly dataDir: string;
  port = 0;
  private readonly bin = postgresBinDir();
  private readonly asPostgresUser = process.getuid?.() === 0;

  constructor(workDir: string) {
    this.dataDir = join(workDir, 'postgres');
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private run(tool: string, args: string[]): void {
    const path = this.bin ? join(this.bin, tool) : tool;
    const [command, argv] = this.asPostgresUser
      ? ['runuser', ['-u', 'postgres', '--', path, ...args]]
      : [path, args];
    execFileSync(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
  }

  async init(): Promise<void> {
    this.port = await freePort();
    mkdirSync(this.dataDir, { recursive: true });
    if (this.asPostgresUser) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(this.dataDir, uid, gid);
      // The work dir is private to root (mkdtemp, 0700): let the postgres user reach its own directory.
      execFileSync('chmod', ['o+x', join(this.dataDir, '..')]);
    }
    // biome-ignore format: one command line
    this.run('initdb', ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  }

  isReady(): boolean {
    return succeeds('pg_isready', ['-q', '-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres']);
  }

  async start(): Promise<void> {
    // biome-ignore format: the server's options
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dataDir} -c fsync=off -c full_page_writes=off -c max_connections=200`;
    this.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.dataDir, 'server.log'),
      '-o',
      options,
      '-w',
      'start',
    ]);
    await waitFor(() => this.isReady(), 60_000, 'the soak PostgreSQL', 200);
  }

  /** The fault: an immediate stop, as a crash or an OOM kill of the server would be. */
  stopImmediate(): void {
    this.run('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
  }

  /** At the end, or on an interrupt: nothing of the soak may outlive it. */
  stopQuietly(): void {
    try {
      if (existsSync(join(this.dataDir, 'postmaster.pid'))) this.stopImmediate();
    } catch {
      // already down
    }
  }
}

/** A throwaway `redis-server` (no persistence) as a child process of the soak. */
export class OwnRedis {
  port = 0;
  private child?: ChildProcess;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  isReady(): boolean {
    return succeeds('redis-cli', ['-h', '127.0.0.1', '-p', String(this.port), 'ping']);
  }

  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    // biome-ignore format: one command line
    this.child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(this.port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(() => this.isReady(), 30_000, 'the soak Redis', 200);
  }

  /** The fault: the server goes away without saving (the services see their connection drop). */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  stopNow(): void {
    this.child?.kill('SIGKILL');
  }
}
