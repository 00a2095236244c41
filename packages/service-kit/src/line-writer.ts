// The log's writer: lines held in memory and written in batches with writeSync on the main thread, so that no
// line is ever in libuv's pool when the process exits or logs a fatal line (P290). docs/architecture.md §3, D22.
import { EventEmitter } from 'node:events';
import { fsyncSync, writeSync } from 'node:fs';

export interface LineWriterSettings {
  /** A file descriptor; a pipe or a socket must be non-blocking (logging.ts `nonBlockingStdout`). */
  readonly fd: number;
  /** Characters held before they are written at once (P139). */
  readonly minLength: number;
  /** The longest a held line waits for more (P139). */
  readonly holdMs: number;
  /** The wait before a write that met a full pipe (EAGAIN) is tried again. */
  readonly retryMs: number;
  /**
   * The longest the synchronous flushes wait on a full pipe, from the first EAGAIN (P147), together: a flush after
   * one that gave up does not wait again until the pipe has taken everything held (P420).
   */
  readonly budgetMs: number;
  /** The most bytes held while the pipe is full; a line beyond it is dropped and counted (P292, P422). */
  readonly maxHeld: number;
  /** The line that says how many lines were dropped at `maxHeld`, written where they would have been. */
  readonly dropNotice: (dropped: number) => string;
}

/** Emitted when nothing is held any more (written, or dropped). */
export const DRAIN_EVENT = 'drain';
/** Emitted when a write met a full pipe and waits `retryMs` to be tried again. */
export const PARK_EVENT = 'park';

/** The most one writeSync is handed: a pipe takes 64 KiB, and a long backlog is not joined into one string. */
const MAX_WRITE = 65_536;
const NEWLINE = 0x0a;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/**
 * The synchronous flush's wait between tries on a full pipe: short, so a reader that is catching up gets the
 * backlog within the budget (a 100 ms wait would leave a socket buffer the reader had emptied idle for most of it).
 */
const SYNC_RETRY_MS = 10;

type Outcome = 'written' | 'full' | 'failed';

/** A reader that has gone, or a descriptor that is not there: no later write can succeed. */
const isClosed = (code: string | undefined) => code === 'EPIPE' || code === 'EBADF';
const isFull = (code: string | undefined) => code === 'EAGAIN' || code === 'EBUSY';

/**
 * pino's destination for the service's log. sonic-boom (pino.destination) hands each batch to libuv's pool and
 * its synchronous flush, which pino runs at exit and after every fatal line, cannot wait for a write still there:
 * the flush wrote the lines behind it first, and a write the pool had not finished at exit was written after
 * them or, once it met a full pipe, lost (P290). Here every write is this thread's own, in the order logged: a
 * batch goes out with writeSync, which on a non-blocking pipe takes what fits and never waits; what the pipe
 * does not take stays held, first in line, and is tried again every `retryMs`, as sonic-boom did. So the
 * synchronous flush writes everything held, oldest first, and nothing can come after it.
 *
 * Failures: a reader that has gone (EPIPE) or a missing descriptor drops what is held and every later line
 * (pino stopped logging there too, P145); any other write error drops what is held, and the next line tries
 * again (a file system that was full may have room). The flush waits on a full pipe for at most `budgetMs`,
 * then drops what is held (P147).
 */
export class LineWriter extends EventEmitter {
  readonly #settings: LineWriterSettings;
  /** Held lines, oldest first, after `#rest`. */
  #lines: string[] = [];
  /** Characters in `#lines`. */
  #queued = 0;
  /**
   * UTF-8 bytes in `#lines`, counted only from when they could reach `maxHeld` (a character is at most 3 bytes)
   * until nothing is held: a line's byte count costs about a tenth of its logging, so a service whose pipe keeps
   * up never pays for it (P422). Undefined while not counted.
   */
  #queuedBytes: number | undefined;
  /**
   * When the synchronous flushes stop waiting on a full pipe: set at their first EAGAIN, cleared once everything
   * held is written (P420).
   */
  #syncDeadline: number | undefined;
  /** The part of a batch the pipe did not take (a pipe takes part of a write), written before `#lines`. */
  #rest: Buffer | undefined;
  /** Whether the last byte written ended a line: a drop in the middle of one ends it before the next. */
  #midLine = false;
  #holdTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Lines dropped at `maxHeld` since the last notice. */
  #dropped = 0;

  constructor(settings: LineWriterSettings) {
    super();
    this.#settings = settings;
  }

  /**
   * Bytes still held (0 once everything is written or dropped); far below `maxHeld`, where bytes are not counted,
   * the held lines' characters (fewer than their bytes when some are not ASCII).
   */
  get pending(): number {
    return (this.#queuedBytes ?? this.#queued) + (this.#rest?.length ?? 0);
  }

  /** Whether a write met a full pipe and waits for its retry. */
  get parked(): boolean {
    return this.#retryTimer !== undefined;
  }

  write(line: string): boolean {
    if (this.#closed) return true;
    if (!this.#hold(line)) return true;
    // Parked: the retry writes it, behind what the pipe refused.
    if (this.#retryTimer !== undefined) return true;
    if (this.#queued >= this.#settings.minLength) this.#writeOut();
    else if (this.#holdTimer === undefined) {
      // Only while something is held: no timer runs on a quiet service.
      this.#holdTimer = setTimeout(() => this.#writeOut(), this.#settings.holdMs);
      this.#holdTimer.unref();
    }
    return true;
  }

  /**
   * Holds `line`, unless the reader has let `maxHeld` pile up: then it is dropped and counted, and the count
   * goes out as a line of its own once there is room again, so the gap shows where it is (P292).
   */
  #hold(line: string): boolean {
    const rest = this.#rest?.length ?? 0;
    let bytes: number | undefined;
    // Bytes, not characters (P422): a line of multi-byte characters holds up to three times its length.
    if (this.#queuedBytes !== undefined || (this.#queued + line.length) * 3 + rest > this.#settings.maxHeld) {
      this.#queuedBytes ??= this.#lines.reduce((sum, held) => sum + Buffer.byteLength(held), 0);
      bytes = Buffer.byteLength(line);
      if (this.#queuedBytes + rest + bytes > this.#settings.maxHeld) {
        this.#dropped += 1;
        return false;
      }
    }
    this.#noteDropped();
    this.#push(line, bytes);
    return true;
  }

  /** Adds `line` to the held lines (its UTF-8 length `bytes`, if known). */
  #push(line: string, bytes?: number): void {
    this.#lines.push(line);
    this.#queued += line.length;
    if (this.#queuedBytes !== undefined) this.#queuedBytes += bytes ?? Buffer.byteLength(line);
  }

  /** Holds the line that counts the lines dropped at `maxHeld`, if any were. */
  #noteDropped(): void {
    if (this.#dropped === 0) return;
    const notice = this.#settings.dropNotice(this.#dropped);
    this.#dropped = 0;
    this.#push(notice);
  }

  /** Writes what is held now (logLastLine, pino's `logger.flush`); `done` once nothing is held. */
  flush(done?: () => void): void {
    if (!this.#closed) this.#writeOut();
    if (done === undefined) return;
    if (this.pending === 0) process.nextTick(done);
    else this.once(DRAIN_EVENT, () => done());
  }

  /**
   * Writes everything held before it returns (pino: at exit and after a fatal line), waiting on a full pipe
   * with a sleep of the thread, not a spin, until `budgetMs` after the first EAGAIN; then drops it.
   */
  flushSync(): void {
    if (this.#closed) return;
    this.#stopTimers();
    this.#noteDropped();
    const outcome = this.#writeHeld(this.#settings.budgetMs);
    if (outcome === 'written') {
      try {
        fsyncSync(this.#settings.fd);
      } catch {
        // A pipe or a terminal has nothing to sync (EINVAL), as sonic-boom's flushSync also ignores.
      }
    }
    this.#settled(outcome);
  }

  /** Writes what the pipe takes now; parks on a full pipe. */
  #writeOut(): void {
    this.#stopTimers();
    const outcome = this.#writeHeld(undefined);
    if (outcome === 'full') {
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = undefined;
        this.#writeOut();
      }, this.#settings.retryMs);
      this.#retryTimer.unref();
      this.emit(PARK_EVENT);
      return;
    }
    this.#settled(outcome);
  }

  #stopTimers(): void {
    clearTimeout(this.#holdTimer);
    clearTimeout(this.#retryTimer);
    this.#holdTimer = undefined;
    this.#retryTimer = undefined;
  }

  /** After a write that did not park: what failed is dropped, and those waiting are told nothing is held. */
  #settled(outcome: Outcome): void {
    if (outcome !== 'written') this.#drop();
    this.emit(DRAIN_EVENT);
  }

  /**
   * Writes what is held, oldest first, until nothing is or the pipe is full. With `budgetMs`, a full pipe is
   * waited on (SYNC_RETRY_MS at a time) until that long after the first EAGAIN of a synchronous flush; the
   * deadline is shared by the flushes that follow until the pipe has taken everything (P420): before, each fatal
   * line's flush had 2 s of its own, and N fatal lines and the exit behind a stuck reader took (N+1) × 2 s.
   */
  #writeHeld(budgetMs: number | undefined): Outcome {
    for (let chunk = this.#next(); chunk !== undefined; chunk = this.#next()) {
      const code = this.#writeSome(chunk);
      if (code !== undefined) {
        if (isClosed(code)) this.#closed = true;
        if (!isFull(code)) return 'failed';
        if (budgetMs === undefined) return 'full';
        const now = performance.now();
        this.#syncDeadline ??= now + budgetMs;
        if (now >= this.#syncDeadline) return 'full';
        Atomics.wait(sleepCell, 0, 0, Math.min(SYNC_RETRY_MS, this.#syncDeadline - now));
      }
    }
    // The reader took everything: a later flush that meets a full pipe waits a budget of its own again.
    this.#syncDeadline = undefined;
    return 'written';
  }

  /** One writeSync of `chunk`; what it did not take stays first in line. The error's code, if it took nothing. */
  #writeSome(chunk: Buffer): string | undefined {
    let written: number;
    try {
      written = writeSync(this.#settings.fd, chunk);
    } catch (error) {
      this.#rest = chunk;
      return (error as NodeJS.ErrnoException).code ?? 'EIO';
    }
    this.#rest = written < chunk.length ? chunk.subarray(written) : undefined;
    // Nothing taken and no error: taken as a full pipe, never a loop that spins.
    if (written === 0) return 'EAGAIN';
    this.#midLine = chunk[written - 1] !== NEWLINE;
    return undefined;
  }

  /** The next bytes to write: what the pipe left of the last batch, else held lines up to MAX_WRITE. */
  #next(): Buffer | undefined {
    if (this.#rest !== undefined) return this.#rest;
    if (this.#lines.length === 0) return undefined;
    let count = 0;
    let size = 0;
    while (count < this.#lines.length && size < MAX_WRITE) size += (this.#lines[count++] as string).length;
    const taken = count === this.#lines.length ? this.#lines : this.#lines.slice(0, count);
    this.#lines = count === this.#lines.length ? [] : this.#lines.slice(count);
    this.#queued -= size;
    const chunk = Buffer.from(taken.join(''));
    if (this.#queuedBytes !== undefined) {
      this.#queuedBytes = this.#lines.length === 0 ? undefined : this.#queuedBytes - chunk.length;
    }
    return chunk;
  }

  /** Drops everything held; a line cut by the drop is ended before the next one, so every line parses. */
  #drop(): void {
    this.#lines = [];
    this.#queued = 0;
    this.#queuedBytes = undefined;
    this.#rest = undefined;
    if (this.#midLine && !this.#closed) {
      this.#rest = Buffer.from('\n');
      this.#midLine = false;
    }
  }
}
