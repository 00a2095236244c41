// The log stream's held lines (LineWriter, P139), the last line's flush (log-settle.ts), standard output's
// synchronous flush once its reader has gone (P145) or while it does not read (P147), no batch left in libuv's pool
// at an exit or a fatal line (P290), a cut line ended (P291), the bound on what a full pipe holds (P292), and
// request.log's lazy pino child (RequestLogger, P139).
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { LineWriter, type LineWriterSettings } from './line-writer.ts';
import { logLastLine } from './log-settle.ts';
import { FLUSH_SYNC_BUDGET_MS, RequestLogger, requestChildLogger } from './logging.ts';
import { createService } from './service.ts';

const dirs: string[] = [];
const fds: number[] = [];
const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const fd of fds.splice(0)) closeSync(fd);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A LineWriter on a file of its own, as loggerOptions builds it on standard output. */
function heldFile(minLength: number, holdMs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'held-log-'));
  dirs.push(dir);
  const file = join(dir, 'log');
  const fd = openSync(file, 'w');
  fds.push(fd);
  const stream = new LineWriter(writerSettings(fd, { minLength, holdMs }));
  return { stream, text: () => readFileSync(file, 'utf8') };
}

/** A LineWriter's settings: the service's, but for what a case names. */
function writerSettings(fd: number, own: Partial<LineWriterSettings> = {}): LineWriterSettings {
  return {
    fd,
    minLength: 4096,
    holdMs: 60_000,
    retryMs: 100,
    budgetMs: 2_000,
    maxHeld: 8 * 1024 * 1024,
    dropNotice: (dropped) => `${JSON.stringify({ dropped })}\n`,
    ...own,
  };
}

/**
 * A pipe (a FIFO) whose reader is this test: `fd` is its write end, non-blocking as standard output is made in a
 * service (P147), and `read` takes whatever the pipe holds now. Nothing reads until `read` is called, so the
 * pipe fills at 64 KiB as it does under a log shipper that has stopped reading.
 */
function fifo() {
  const dir = mkdtempSync(join(tmpdir(), 'log-fifo-'));
  dirs.push(dir);
  const path = join(dir, 'fifo');
  execFileSync('mkfifo', [path]);
  // Read and write: Linux opens a FIFO so without waiting for a reader.
  const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  fds.push(fd, reader);
  const buffer = Buffer.alloc(65_536);
  const read = (): string => {
    let text = '';
    for (;;) {
      try {
        const count = readSync(reader, buffer);
        if (count === 0) return text;
        text += buffer.toString('latin1', 0, count);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return text;
        throw error;
      }
    }
  };
  return { fd, read };
}

/** Line `i` of exactly 1,000 bytes: the pipe's 65,536 then end in the middle of one. */
const paddedLine = (i: number) => {
  const head = `{"i":${i},"pad":"`;
  return `${head}${'x'.repeat(1000 - head.length - 3)}"}\n`;
};

/** Writes padded lines from `from` until the writer parks on the full pipe; the next index. */
function fillUntilParked(stream: LineWriter, from = 0): number {
  let i = from;
  while (!stream.parked) {
    stream.write(paddedLine(i++));
    if (i > from + 1_000) throw new Error('the pipe never filled');
  }
  return i;
}

/** The `i` of each complete line of `text`, in order (a cut line is not JSON and throws). */
const indices = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { i?: number; dropped?: number }).i ?? 'notice');

describe('LineWriter', () => {
  it('writes lines below minLength together after the hold, and runs no timer once nothing is held', () => {
    const { stream, text } = heldFile(4096, 40);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const lines = Array.from({ length: 10 }, (_, i) => `{"line":${i}}\n`);
      for (const line of lines) stream.write(line);
      vi.advanceTimersByTime(39);
      expect(text()).toBe('');
      vi.advanceTimersByTime(1);
      expect(text()).toBe(lines.join(''));
      expect(stream.pending).toBe(0);
      // sonic-boom's periodicFlush wrote an empty string on every tick; nothing runs on a quiet service here.
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes at once, in order, what reaches minLength', () => {
    const { stream, text } = heldFile(256, 60_000);
    stream.write('{"first":1}\n');
    const big = `${'x'.repeat(300)}\n`;
    stream.write(big);
    expect(text()).toBe(`{"first":1}\n${big}`);
    stream.write('{"after":1}\n');
    expect(text()).toBe(`{"first":1}\n${big}`);
  });

  it('writes a fatal line, and every line before it, before pino returns, and arms nothing after', () => {
    const { stream, text } = heldFile(4096, 100);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const logger = pino({ base: null, timestamp: false }, stream);
      logger.info('an earlier line');
      // pino flushes the stream synchronously after a fatal line.
      logger.fatal('a fatal line');
      expect(text()).toBe('{"level":30,"msg":"an earlier line"}\n{"level":60,"msg":"a fatal line"}\n');
      expect(vi.getTimerCount()).toBe(0);
      // The hold still works for the next line.
      logger.info('a later line');
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(100);
      expect(text()).toContain('{"level":30,"msg":"a later line"}\n');
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets logLastLine write the held last line at once, not after the hold', async () => {
    const { stream, text } = heldFile(4096, 60_000);
    const logger = pino({ base: null, timestamp: false }, stream);
    logger.info('an earlier line');
    await logLastLine(logger, 'shutdown complete', 5_000);
    expect(text()).toBe('{"level":30,"msg":"an earlier line"}\n{"level":30,"msg":"shutdown complete"}\n');
  });

  it("answers pino's logger.flush(callback) once what is held is written", async () => {
    const { stream, text } = heldFile(4096, 60_000);
    const logger = pino({ base: null, timestamp: false }, stream);
    logger.info('held');
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    expect(text()).toBe('{"level":30,"msg":"held"}\n');
  });

  it('drops what it holds when a write fails, and tries the next line again (a full disk: ENOSPC)', () => {
    const fd = openSync('/dev/full', 'w');
    fds.push(fd);
    const stream = new LineWriter(writerSettings(fd));
    stream.write('{"lost":1}\n');
    stream.flushSync();
    expect(stream.pending).toBe(0);
    stream.write('{"held":2}\n');
    expect(stream.pending).toBe('{"held":2}\n'.length);
    stream.flushSync();
    expect(stream.pending).toBe(0);
  });

  it('drops every line from the first write that finds no descriptor (EBADF), as after EPIPE (P145)', () => {
    // A descriptor number far above any this process holds.
    const stream = new LineWriter(writerSettings(1 << 20));
    stream.write('{"lost":1}\n');
    stream.flushSync();
    stream.write('{"lost":2}\n');
    expect(stream.pending).toBe(0);
  });
});

describe('LineWriter on a full pipe', () => {
  it('holds what the pipe did not take, first in line, and writes it all in order once the reader reads', () => {
    const pipe = fifo();
    const stream = new LineWriter(writerSettings(pipe.fd));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let next = fillUntilParked(stream);
      for (const end = next + 20; next < end; ) stream.write(paddedLine(next++));
      let text = pipe.read();
      expect(text.length).toBeGreaterThan(0);
      // Parked: nothing is tried until the retry, however much is logged meanwhile.
      expect(pipe.read()).toBe('');
      vi.advanceTimersByTime(100);
      text += pipe.read();
      expect(stream.pending).toBe(0);
      expect(indices(text)).toEqual(Array.from({ length: next }, (_, i) => i));
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends a line its flush cut when it gave up, so the next line is a line of its own (P291)', () => {
    const pipe = fifo();
    const stream = new LineWriter(writerSettings(pipe.fd, { budgetMs: 50 }));
    const next = fillUntilParked(stream);
    // The exit's or a fatal line's flush: the reader takes nothing for the budget, and what is held is dropped.
    stream.flushSync();
    expect(stream.pending).toBeLessThanOrEqual(1);
    const before = pipe.read();
    // The case: the pipe took part of a line (65,536 is no multiple of 1,000).
    expect(before.endsWith('\n')).toBe(false);
    stream.write(paddedLine(next));
    stream.flushSync();
    const lines = (before + pipe.read()).split('\n').filter((line) => line !== '');
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ i: next });
    expect(lines.at(-2)).toBe(before.slice(before.lastIndexOf('\n') + 1));
  });

  it('holds at most maxHeld behind a full pipe, and says how many lines it dropped where they were (P292)', () => {
    const pipe = fifo();
    const stream = new LineWriter(writerSettings(pipe.fd, { maxHeld: 20_000 }));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let next = fillUntilParked(stream);
      for (const end = next + 100; next < end; ) stream.write(paddedLine(next++));
      expect(stream.pending).toBeLessThanOrEqual(20_000);
      let text = pipe.read();
      vi.advanceTimersByTime(100);
      text += pipe.read();
      expect(stream.pending).toBe(0);
      stream.write(paddedLine(next++));
      stream.flushSync();
      text += pipe.read();
      const seen = text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { i?: number; dropped?: number });
      const notice = seen.find((line) => line.dropped !== undefined);
      const written = seen.flatMap((line) => (line.i === undefined ? [] : [line.i]));
      // Every line is written or counted, and the notice sits where the dropped lines were.
      expect((notice?.dropped ?? 0) + written.length).toBe(next);
      expect(notice?.dropped).toBeGreaterThan(0);
      expect(indices(text).indexOf('notice')).toBe(written.indexOf(next - 1));
      expect(written).toEqual([...written].sort((a, b) => a - b));
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts what it holds in bytes, not characters: multi-byte lines stay within maxHeld too (P422)', () => {
    const pipe = fifo();
    const stream = new LineWriter(writerSettings(pipe.fd, { maxHeld: 20_000 }));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const next = fillUntilParked(stream);
      // The reader takes what the pipe holds; what is held behind the park is all that comes after.
      pipe.read();
      // 100 lines of ~1,000 bytes in ~340 characters (the euro sign is 3 bytes in UTF-8).
      for (let i = next; i < next + 100; i++)
        stream.write(`${JSON.stringify({ i, pad: '€'.repeat(330) })}\n`);
      let held = '';
      for (let turn = 0; turn < 10 && stream.pending > 0; turn++) {
        vi.advanceTimersByTime(100);
        held += pipe.read();
      }
      expect(stream.pending).toBe(0);
      stream.flushSync();
      held += pipe.read();
      // `read` decodes latin1: one character a byte. The notice of what was dropped is the only line added.
      const notice = held.split('\n').find((line) => line.includes('"dropped"')) ?? '';
      expect(notice).not.toBe('');
      expect(held.length - notice.length - 1).toBeLessThanOrEqual(20_000);
    } finally {
      vi.useRealTimers();
    }
  });
});

/**
 * Lines of ~1 KB the child logs at once on 'flood': ~1 MB. The child's standard output is a socket pair
 * (child_process' 'pipe'), whose send buffer is net.core.wmem_default, 208 KiB here, not a pipe's 64 KiB: 200 lines
 * (~210 KB) sometimes all fitted, the write never met a full buffer, and a case meant for a stuck reader tested
 * nothing (or, waiting for the write to park, waited for ever).
 */
const FLOOD_LINES = 1000;

/**
 * A process logging to standard output through the service's own stream (loggerOptions' asyncStdout): it
 * logs "ready", then on each line of its standard input runs that line's step. Steps: `fatal` (pino flushes
 * synchronously after a fatal line), `flood` (FLOOD_LINES lines at once), `exit` (a line held at
 * process.exit: pino's exit handler flushes it synchronously), `exit3` (process.exit(3), nothing logged).
 * `parked:STEP` runs STEP, and every step after it, when the writer next meets the full pipe and parks its
 * lines on the retry timer (the writer's PARK_EVENT; from a `process.nextTick` queued there, so before any I/O
 * callback: a step the parent sends on seeing the park cannot run first). Each park is reported on file
 * descriptor 3 as a JSON line `{ ran }`, the steps it ran, written synchronously so that an exit right after
 * cannot lose it.
 */
/** Lines of ~1 KB the child logs at once on 'hugeflood': ~9.3 MB, past the 8 MiB held behind a full pipe (P292). */
const HUGE_FLOOD_LINES = 9_000;

const LOGGING_CHILD = `
import { writeSync } from 'node:fs';
import { loggerOptions, requestLineLogger } from ${JSON.stringify(fileURLToPath(new URL('./logging.ts', import.meta.url)))};
const options = loggerOptions({ level: 'info', service: 'child' });
const log = requestLineLogger(options);
const FLOOD_LINES = ${FLOOD_LINES};
let deferred = [];
let reportDrains = false;
options.stream.on('drain', () => {
  if (reportDrains && options.stream.pending === 0) writeSync(3, JSON.stringify({ ran: [], drained: true }) + '\\n');
});
options.stream.on('park', () => {
  const ran = deferred;
  deferred = [];
  writeSync(3, JSON.stringify({ ran }) + '\\n');
  if (ran.length > 0) process.nextTick(() => ran.forEach(run));
});
function run(step) {
  if (step === 'fatal') log.fatal('a fatal line');
  if (step === 'flood') for (let i = 0; i < FLOOD_LINES; i++) log.info({ i, pad: 'x'.repeat(1000) }, 'flood');
  if (step === 'hugeflood') {
    reportDrains = true;
    for (let i = 0; i < ${HUGE_FLOOD_LINES}; i++) log.info({ i, pad: 'x'.repeat(1000) }, 'huge');
  }
  if (step === 'exit') {
    log.info('the last line');
    process.exit(0);
  }
  if (step === 'exit3') process.exit(3);
}
log.info('ready');
let input = '';
process.stdin.on('data', (chunk) => {
  input += String(chunk);
  for (let end = input.indexOf('\\n'); end >= 0; end = input.indexOf('\\n')) {
    const step = input.slice(0, end);
    input = input.slice(end + 1);
    if (step.startsWith('parked:')) deferred.push(step.slice('parked:'.length));
    else if (deferred.length > 0) deferred.push(step);
    else run(step);
  }
});
`;

function loggingChild() {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--input-type=module', '--eval', LOGGING_CHILD],
    {
      env: { PATH: process.env['PATH'] ?? '' },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    },
  ) as ChildProcessWithoutNullStreams;
  let out = '';
  let err = '';
  let isReady = false;
  const ready = new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
      // Searched until found only: a flood of megabytes would be searched again at every chunk.
      if (!isReady && out.includes('"msg":"ready"')) {
        isReady = true;
        resolve();
      }
    }),
  );
  child.stderr.on('data', (chunk) => {
    err += String(chunk);
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  /** Its exit code, or 'still running' after `ms` (then it is killed). */
  const exit = async (ms: number) => {
    const code = await Promise.race([
      exited,
      new Promise<string>((r) => setTimeout(() => r('still running'), ms)),
    ]);
    if (code === 'still running') child.kill('SIGKILL');
    return code;
  };
  /** Closes the read end of its standard output: every later write of the child meets EPIPE. */
  const readerGone = async () => {
    await ready;
    child.stdout.destroy();
    await new Promise((resolve) => child.stdout.once('close', resolve));
  };
  /** Stops reading its standard output (the reader stays, the pipe fills): a log shipper stuck or behind. */
  const readerStuck = async () => {
    await ready;
    child.stdout.pause();
  };
  /** Its reports of parks (LOGGING_CHILD), one JSON line each. */
  const parks = new EventEmitter();
  let reported = '';
  (child.stdio[3] as Readable).on('data', (chunk) => {
    reported += String(chunk);
    for (let end = reported.indexOf('\n'); end >= 0; end = reported.indexOf('\n')) {
      const report = JSON.parse(reported.slice(0, end)) as { ran: string[]; drained?: true };
      parks.emit(report.drained === true ? 'drained' : 'park', report);
      reported = reported.slice(end + 1);
    }
  });
  /** The next time its write is parked on a full pipe (with `step`: the park that ran that deferred step). */
  const parked = (step?: string) =>
    new Promise<void>((resolve) => {
      const seen = (park: { ran: string[] }) => {
        if (step !== undefined && !park.ran.includes(step)) return;
        parks.off('park', seen);
        resolve();
      };
      parks.on('park', seen);
    });
  /** The next time its writer holds nothing (only reported from a 'hugeflood' on). */
  const drained = () => new Promise<void>((resolve) => parks.once('drained', () => resolve()));
  return { child, ready, exit, readerGone, readerStuck, parked, drained, out: () => out, err: () => err };
}

describe("standard output's synchronous flush (P145)", () => {
  it('exits at once, with its own exit code, when a line is held at exit and the reader has gone', async () => {
    const { child, exit, readerGone, err } = loggingChild();
    await readerGone();
    child.stdin.write('exit\n');
    expect(await exit(5_000)).toBe(0);
    expect(err()).toBe('');
  }, 15_000);

  it('logs a fatal line and goes on once the reader has gone', async () => {
    const { child, exit, readerGone, err } = loggingChild();
    await readerGone();
    child.stdin.write('fatal\nfatal\nexit\n');
    expect(await exit(5_000)).toBe(0);
    expect(err()).toBe('');
  }, 15_000);

  it('writes the line held at exit while the reader is there', async () => {
    const { child, ready, exit, out } = loggingChild();
    await ready;
    child.stdin.write('exit\n');
    expect(await exit(5_000)).toBe(0);
    expect(out()).toContain('"msg":"the last line"');
  }, 15_000);
});

/**
 * How long a child may take to exit before it counts as hung. P147's failure was a hang for ever; the budget it
 * waits on a full pipe is FLUSH_SYNC_BUDGET_MS (2 s). A bound against a hang, not a measure of the budget: a
 * loaded machine may take seconds more, so the exit is not timed against the budget here.
 */
const STUCK_EXIT_MS = 20_000;

/** The JSON lines a child wrote, in order. */
function loggedLines(text: string): { msg: string; i?: number }[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { msg: string; i?: number });
}

/** The indices of the flood lines a child wrote, in order, and all of them. */
const floodIndices = (text: string) =>
  loggedLines(text).flatMap((line) => (line.msg === 'flood' ? [line.i] : []));
const everyFloodIndex = () => Array.from({ length: FLOOD_LINES }, (_, i) => i);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A logging child whose log shipper has stopped reading (the pipe fills): `send` runs its steps, `parked` waits
 * for its write to be parked on the full pipe (see LOGGING_CHILD), `readerCatchesUp` lets the shipper read again,
 * and `expectExit` checks it exited with `code` (not hung), wrote nothing to standard error and (with
 * `everyFloodLine`) lost no flood line and wrote them in order.
 */
async function childWithStuckReader() {
  const logging = loggingChild();
  await logging.readerStuck();
  return {
    out: logging.out,
    parked: logging.parked,
    send: (...steps: string[]) => logging.child.stdin.write(`${steps.join('\n')}\n`),
    readerCatchesUp: () => logging.child.stdout.resume(),
    async expectExit(code: number, options: { withinMs?: number; everyFloodLine?: boolean } = {}) {
      expect(await logging.exit(options.withinMs ?? STUCK_EXIT_MS)).toBe(code);
      if (options.everyFloodLine === true) expect(floodIndices(logging.out())).toEqual(everyFloodIndex());
      expect(logging.err()).toBe('');
    },
  };
}

// Each step that meets the full pipe is deferred to the moment the asynchronous write is parked (`parked:`), and
// the reader catches up on the child's report of that park: the state each case names, reached by events. Sent
// at once or after a pause instead, a step could land while the write was in libuv's pool (the flush leaves that
// write to the asynchronous path, P147), which a loaded machine made likely: lines out of order, or lost.
describe("standard output's synchronous flush with a stuck reader (P147)", () => {
  it('exits with its own code when the pipe is full and its reader never reads', async () => {
    const logging = await childWithStuckReader();
    logging.send('flood', 'parked:exit3');
    await logging.expectExit(3);
  }, 30_000);

  it('exits with its own code after a fatal line met the full pipe, and the exit met it again', async () => {
    const logging = await childWithStuckReader();
    // The synchronous flushes (the fatal line's, then the exit's) share one budget (P420).
    logging.send('flood', 'parked:fatal', 'exit');
    await logging.expectExit(0);
  }, 30_000);

  it('spends one budget on a full pipe however many fatal lines precede the exit (P420)', async () => {
    const logging = await childWithStuckReader();
    const fatalRan = logging.parked('fatal');
    logging.send('flood', 'parked:fatal', 'fatal', 'fatal', 'fatal', 'fatal', 'exit');
    await fatalRan;
    const start = performance.now();
    await logging.expectExit(0);
    // Before: each of the six synchronous flushes waited its own FLUSH_SYNC_BUDGET_MS, 12 s at least.
    expect(performance.now() - start).toBeLessThan(3 * FLUSH_SYNC_BUDGET_MS);
  }, 30_000);

  it('writes every held line to a reader that is behind but catches up within the budget', async () => {
    const logging = await childWithStuckReader();
    const exitRan = logging.parked('exit3');
    logging.send('flood', 'parked:exit3');
    await exitRan;
    logging.readerCatchesUp();
    await logging.expectExit(3, { everyFloodLine: true });
  }, 30_000);

  it('writes every line to a reader that was already behind before the exit, the parked write too', async () => {
    const logging = await childWithStuckReader();
    const firstPark = logging.parked();
    logging.send('flood');
    await firstPark;
    // The write has waited on its timer at least once; the exit comes at a later park.
    const exitRan = logging.parked('exit3');
    logging.send('parked:exit3');
    await exitRan;
    // The exit's flush meets the full pipe meanwhile, or the reader is back first: the same lines either way.
    await pause(300);
    logging.readerCatchesUp();
    await logging.expectExit(3, { everyFloodLine: true });
  }, 30_000);

  it('goes on logging, each line once and in order, after a fatal line took the parked write', async () => {
    const logging = await childWithStuckReader();
    const firstPark = logging.parked();
    logging.send('flood');
    await firstPark;
    // The fatal line's synchronous flush writes the parked chunk and the lines behind it as the reader
    // catches up; sonic-boom's retry of the parked write then writes nothing and carries on.
    const fatalRan = logging.parked('fatal');
    logging.send('parked:fatal');
    await fatalRan;
    logging.readerCatchesUp();
    logging.send('exit');
    await logging.expectExit(0);
    const lines = loggedLines(logging.out());
    expect(lines.map((line) => line.i ?? line.msg)).toEqual([
      'ready',
      ...Array.from({ length: FLOOD_LINES }, (_, i) => i),
      'a fatal line',
      'the last line',
    ]);
  }, 30_000);
});

/** Lines the race child logs at once: ~10 KB, so the first LOG_BATCH_BYTES go to a write and the rest are held. */
const BURST_LINES = 100;

/**
 * A process logging BURST_LINES lines at once through the service's own stream, then `exit` (process.exit: pino's
 * exit handler flushes what is held) or `fatal` (a fatal line: pino flushes after it), while the only thread of
 * libuv's pool (UV_THREADPOOL_SIZE=1) is taken by a read of standard input that waits for the parent: a write
 * handed to the pool then waits behind it, as on a host whose pool is busy (crypto, DNS, the file system) or whose
 * pool thread is not scheduled. Once the exit's or the fatal line's flush has returned the child says so on file
 * descriptor 3 (synchronously), and the parent then lets the read finish; the read's callback logs a last line
 * and exits. Every line must arrive, once, in the order logged.
 */
const RACE_CHILD = `
import { read, writeSync } from 'node:fs';
import { loggerOptions, requestLineLogger } from ${JSON.stringify(fileURLToPath(new URL('./logging.ts', import.meta.url)))};
const log = requestLineLogger(loggerOptions({ level: 'info', service: 'child' }));
read(0, Buffer.alloc(1), 0, 1, null, () => {
  log.info('the last line');
  process.exit(0);
});
for (let i = 0; i < ${BURST_LINES}; i++) log.info({ i }, 'burst');
if (process.argv.includes('fatal')) {
  log.fatal('a fatal line');
  writeSync(3, 'flushed\\n');
} else {
  process.on('exit', () => writeSync(3, 'flushed\\n'));
  process.exit(0);
}
`;

/** Runs RACE_CHILD with `step`; its exit code and what it wrote to standard output and standard error. */
async function raceChild(step: 'exit' | 'fatal') {
  const child = spawn(process.execPath, ['--input-type=module', '--eval', RACE_CHILD, '--', step], {
    env: { PATH: process.env['PATH'] ?? '', UV_THREADPOOL_SIZE: '1' },
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    err += String(chunk);
  });
  // The flush has returned: the pool's read may finish now (and any write queued behind it run).
  (child.stdio[3] as Readable).once('data', () => child.stdin?.write('go\n'));
  const code = await Promise.race([
    new Promise<number | string | null>((resolve) => child.on('exit', (c, signal) => resolve(c ?? signal))),
    new Promise<string>((resolve) => setTimeout(() => resolve('still running'), STUCK_EXIT_MS)),
  ]);
  if (code === 'still running') child.kill('SIGKILL');
  return { code, out, err };
}

describe('the line that counts dropped lines (P421)', () => {
  it("carries the service's name, as every other line does", async () => {
    const logging = loggingChild();
    await logging.readerStuck();
    const firstPark = logging.parked();
    logging.child.stdin.write('hugeflood\n');
    await firstPark;
    // The reader catches up with the 8 MiB held; the next line then brings the notice of those dropped.
    const drained = logging.drained();
    logging.child.stdout.resume();
    await drained;
    logging.child.stdin.write('exit\n');
    expect(await logging.exit(STUCK_EXIT_MS)).toBe(0);
    const lines = logging
      .out()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const notice = lines.find((line) => line['dropped'] !== undefined);
    // Before: {"level":40,"time":…,"pid":…,"dropped":…,"msg":…}, no `service`.
    expect(notice).toMatchObject({ level: 40, service: 'child', pid: logging.child.pid });
    expect(notice?.['dropped']).toBeGreaterThan(0);
    expect(lines.filter((line) => line['service'] !== 'child')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ msg: 'the last line' });
    expect(logging.err()).toBe('');
  }, 30_000);
});

describe("a write in libuv's pool when the process exits or logs a fatal line (P290)", () => {
  const burst = Array.from({ length: BURST_LINES }, (_, i) => i);

  it('writes every line held at exit once, in the order logged', async () => {
    const { code, out, err } = await raceChild('exit');
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(loggedLines(out).map((line) => line.i ?? line.msg)).toEqual(burst);
  }, 30_000);

  it('writes the lines before a fatal line before it, and every line once', async () => {
    const { code, out, err } = await raceChild('fatal');
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(loggedLines(out).map((line) => line.i ?? line.msg)).toEqual([
      ...burst,
      'a fatal line',
      'the last line',
    ]);
  }, 30_000);
});

function captured() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const parsed = () =>
    lines
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, parsed };
}

describe('RequestLogger', () => {
  it('makes no pino child while nothing is logged at an enabled level', () => {
    const parent = pino({ level: 'info' }, captured().stream);
    const child = vi.spyOn(parent, 'child');
    const log = new RequestLogger(parent, { reqId: 'r-1' }, {});
    log.debug({ method: 'GET' }, 'incoming request');
    log.trace('nothing');
    expect(log.isLevelEnabled('debug')).toBe(false);
    expect(log.level).toBe('info');
    expect(child).not.toHaveBeenCalled();
  });

  it("logs the child's line, bindings and redaction included, once a level is on", () => {
    const { stream, parsed } = captured();
    const parent = pino({ level: 'info', base: { service: 's' }, redact: ['token'] }, stream);
    const log = new RequestLogger(parent, { reqId: 'r-2' }, {});
    log.warn({ token: 'secret' }, 'careful');
    log.error(new Error('boom'));
    expect(parsed()).toMatchObject([
      { level: 40, service: 's', reqId: 'r-2', token: '[Redacted]', msg: 'careful' },
      { level: 50, service: 's', reqId: 'r-2', msg: 'boom', err: { message: 'boom' } },
    ]);
    expect(log.bindings()).toEqual({ service: 's', reqId: 'r-2' });
  });

  it("takes the parent's level until it has a child, then its own", () => {
    const { stream, parsed } = captured();
    const parent = pino({ level: 'warn' }, stream);
    const log = new RequestLogger(parent, { reqId: 'r-3' }, {});
    log.info('dropped');
    parent.level = 'info';
    log.info('kept');
    log.level = 'error';
    log.warn('dropped too');
    expect(parent.level).toBe('info');
    expect(parsed().map((l) => l['msg'])).toEqual(['kept']);
  });

  it("gives a route with its own level the parent's pino child at once", () => {
    const parent = pino({ level: 'info' }, captured().stream);
    const made = requestChildLogger(parent, { reqId: 'r-4' }, { level: 'debug' });
    expect(made).not.toBeInstanceOf(RequestLogger);
    expect((made as pino.Logger).isLevelEnabled('debug')).toBe(true);
  });

  it("is request.log in a service, and a route's error line carries its reqId", async () => {
    const { stream, parsed } = captured();
    const app = await createService({
      name: 'test',
      version: '1',
      config: loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { LOG_LEVEL: 'info' }),
      rateLimit: false,
      logger: { stream },
    });
    apps.push(app);
    let seen: unknown;
    app.get('/warns', async (request) => {
      seen = request.log;
      request.log.warn({ detail: 1 }, 'route warning');
      return { ok: true };
    });
    await app.ready();
    await app.inject({ method: 'GET', url: '/warns', headers: { 'x-request-id': 'req-9' } });
    expect(seen).toBeInstanceOf(RequestLogger);
    const mine = parsed().filter((l) => l['reqId'] === 'req-9');
    expect(mine.map((l) => l['msg'])).toEqual(['route warning', 'request completed']);
    expect(mine[0]).toMatchObject({ level: 40, service: 'test', detail: 1 });
  });
});
