// Reading an upstream's answer without trusting its size: a declared Content-Length above the cap is refused
// before the body is read, and a body that streams past the cap is cut there, so a hostile or broken source
// costs at most `maxBytes` of memory (P154). Any source the stack calls (chains, logs, explorers) reads this way.

/** The answer is larger than the caller accepts; nothing of it was kept. */
export class AnswerTooLarge extends Error {
  override readonly name = 'AnswerTooLarge';
  /** The cap the answer broke. */
  readonly maxBytes: number;
  /** The length the answer declared; undefined when it streamed past the cap instead. */
  readonly declared: number | undefined;

  constructor(message: string, maxBytes: number, declared?: number) {
    super(message);
    this.maxBytes = maxBytes;
    this.declared = declared;
  }
}

/** Default cap of one answer from a chain, explorer or log (a Bitcoin transaction's hex fits many times over). */
export const DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The body of `response`, at most `maxBytes` long. Throws AnswerTooLarge (after cancelling the body, which closes
 * the connection) when it declares or turns out to be longer. A timeout or network error while reading is the
 * caller's fetch signal, rethrown as is. Binary answers (a log's tiles) are read this way.
 */
export async function readBoundedBytes(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = response.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new AnswerTooLarge(
      `the answer declares ${Number(declared)} bytes, larger than ${maxBytes} bytes`,
      maxBytes,
      Number(declared),
    );
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLarge(`the answer is larger than ${maxBytes} bytes`, maxBytes);
    }
    chunks.push(value);
  }
  // Not concatBytes(...chunks): a source dripping tiny chunks would pass more arguments than a call takes.
  const joined = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.byteLength;
  }
  return joined;
}

/** The body of `response` as UTF-8 text, at most `maxBytes` long: readBoundedBytes, then decoded. */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readBoundedBytes(response, maxBytes));
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A redirect a `redirect: 'manual'` fetch handed back instead of following (a browser's is opaque, status 0). */
export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || REDIRECTS.has(response.status);
}
