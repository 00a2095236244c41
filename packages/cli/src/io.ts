// Input and output of the `proto` command: reading FILE or stdin, JSON parsing, printing, exit codes.
// docs/architecture.md §1 (cli imports core only); exit codes: 0 ok/verified, 1 not verified, 2 unusable input.
import { fstatSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
// The one function, not the package's index: help and usage errors must not load the verifier (loadCore).
import { jsonWithHiddenEscaped } from '@proto/core/json-text';

/** Where a command writes; tests and embedders pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whole standard input as text. */
  readonly readStdin: () => Promise<string>;
  /** Standard output is a terminal (readable output instead of JSON where a command offers both). */
  readonly isTerminal?: boolean;
  /** Standard error is a terminal: progress lines for long waits go there (progress.ts). */
  readonly stderrIsTerminal?: boolean;
}

/**
 * The core library, loaded when a command runs: help and usage errors answer without paying for
 * the verifier, schemas and crypto (a second or more on a busy machine).
 */
export function loadCore(): Promise<typeof import('./core.ts')> {
  return import('./core.ts');
}

export const EXIT_OK = 0;
export const EXIT_NOT_VERIFIED = 1;
export const EXIT_USAGE = 2;
/** A bug, not the user's input: reported with its message so it can be filed. */
export const EXIT_INTERNAL = 3;

/** A problem with the command line or its input: message on stderr, exit 2, usage optional. */
export class CliError extends Error {
  readonly showUsage: boolean;
  constructor(message: string, options: { showUsage?: boolean } = {}) {
    super(message);
    this.name = 'CliError';
    this.showUsage = options.showUsage ?? false;
  }
}

/** Display name of an input argument: '-' is standard input. */
export function inputName(source: string): string {
  return source === '-' ? '<stdin>' : source;
}

/**
 * `bytes` as strict UTF-8, named `name` in the error (P232): a lenient decoder turns a byte that is not UTF-8 into
 * U+FFFD, so a signature over text holding U+FFFD would hold for a file that does not contain it. The verification
 * service refuses such a body (400) and the console such a file (P220); so does the CLI. A leading BOM is dropped,
 * as the service drops it.
 */
export function decodeUtf8Strict(bytes: Uint8Array, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CliError(`${name}: not valid UTF-8: the input holds bytes no UTF-8 text is made of`);
  }
}

/**
 * P528: the most `proto` reads from one file or stdin, the cap of a URL answer (@proto/clients'
 * DEFAULT_MAX_ANSWER_BYTES, P162): read whole, a 600 MB file took 1.3 GB and was then called "not valid UTF-8".
 */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export function tooLargeMessage(name: string): string {
  return `${name}: more than proto reads from a file, stdin or URL (16 MiB)`;
}

const CHUNK_BYTES = 65_536;

/**
 * The bytes of an open descriptor, at most MAX_INPUT_BYTES (a regular file refused on its size, unread; a pipe or
 * device, which has no size, read until past the cap). For `proto verify --batch`'s worker threads.
 */
export function readDescriptorBounded(fd: number, name: string): Uint8Array {
  const stat = fstatSync(fd);
  if (stat.isFile() && stat.size > MAX_INPUT_BYTES) throw new CliError(tooLargeMessage(name));
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
    if (read === 0) return Buffer.concat(chunks, total);
    total += read;
    if (total > MAX_INPUT_BYTES) throw new CliError(tooLargeMessage(name));
    chunks.push(chunk.subarray(0, read));
  }
}

/** A stream's bytes (standard input, a file), at most MAX_INPUT_BYTES. */
export async function readStreamBounded(
  stream: AsyncIterable<Buffer | string>,
  name: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.byteLength;
    if (total > MAX_INPUT_BYTES) throw new CliError(tooLargeMessage(name));
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total);
}

/** Reads FILE or '-' (stdin) as strict UTF-8; an unreadable file is a CliError naming it. */
export async function readInput(source: string, io: CliIo): Promise<string> {
  if (source === '-') return io.readStdin();
  let bytes: Uint8Array;
  try {
    const handle = await open(source, 'r');
    try {
      const stat = await handle.stat();
      if (stat.isFile() && stat.size > MAX_INPUT_BYTES) throw new CliError(tooLargeMessage(source));
      // A pipe (`<(…)`) or device has no size: read until past the cap.
      bytes = await readStreamBounded(handle.createReadStream({ autoClose: false }), source);
    } finally {
      await handle.close();
    }
  } catch (cause) {
    if (cause instanceof CliError) throw cause;
    throw new CliError(`${source}: cannot read file: ${describeFsError(cause)}`);
  }
  return decodeUtf8Strict(bytes, source);
}

/**
 * Reads and parses a JSON input; the error names the input and the parser's complaint. Text with no
 * single canonical reading (duplicate member names, 1e400, lone surrogates) is refused as the
 * verification service refuses it (issue 12): JSON.parse would silently pick one reading.
 */
export async function readJsonInput(source: string, io: CliIo): Promise<unknown> {
  const text = await readInput(source, io);
  return parseStrictly(text, inputName(source));
}

/**
 * `text` parsed with one canonical reading (P320) and no member named `__proto__` (P336: the service's JSON and
 * CBOR readers refuse it, so the CLI and the service read one file alike); errors name `name`.
 */
export async function parseStrictly(text: string, name: string): Promise<unknown> {
  const value = parseJson(text, name);
  const { checkParsedJson, prototypeMemberMessage, prototypeMemberPath } = await loadCore();
  const strict = checkParsedJson(text, value);
  if (!strict.ok) throw new CliError(`${name}: JSON has no canonical form: ${strict.error.message}`);
  const at = prototypeMemberPath(value);
  if (at !== undefined) throw new CliError(`${name}: ${prototypeMemberMessage(at)}`);
  return value;
}

export function parseJson(text: string, name: string): unknown {
  if (text.trim() === '') throw new CliError(`${name}: invalid JSON: empty input`);
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new CliError(`${name}: invalid JSON: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** JSON text of `value` whose strings carry no character a terminal would act on or hide; it parses the same. */
export function terminalSafeJson(value: unknown, indent?: number): string {
  // P596: a name from a list, a record or a file name must not move the cursor or reverse the line on a terminal.
  return jsonWithHiddenEscaped(JSON.stringify(value, null, indent));
}

/** Pretty JSON (two spaces) and a final newline, as every command prints its result. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${terminalSafeJson(value, 2)}\n`);
}

function describeFsError(cause: unknown): string {
  if (typeof cause === 'object' && cause !== null && 'code' in cause) {
    const code = String((cause as { code: unknown }).code);
    const known: Record<string, string> = {
      ENOENT: 'no such file',
      EACCES: 'permission denied',
      EISDIR: 'is a directory',
    };
    return known[code] ?? `${code}`;
  }
  return cause instanceof Error ? cause.message : String(cause);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * P322: an object holding both a signed bundle's own members (`bundle`, `signature`) and a /verify request's
 * `signed_bundle` has two readings: the tools took the request's and judged the `signed_bundle` member, while a
 * person reads the bundle beside it (the terminal report shows no content to tell them apart). The message for such
 * input, which `proto verify` (FILE and --batch) and `proto hash` refuse.
 */
export function twoReadingsMessage(value: Readonly<Record<string, unknown>>): string | undefined {
  if (!Object.hasOwn(value, 'signed_bundle')) return undefined;
  if (!Object.hasOwn(value, 'bundle') && !Object.hasOwn(value, 'signature')) return undefined;
  return 'both a signed bundle (bundle, signature) and a /verify request (signed_bundle): give one';
}
