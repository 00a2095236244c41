// One outbound HTTP exchange with an upstream the stack does not trust (P154–P156, P162, P167): the timeout covers
// the whole exchange, body included; a redirect is refused, never followed (it could lead to a host, or plain
// http:, the operator never named, carrying a token); the body is read through readBoundedBytes. Every caller
// (CLI, receipt checks, anchor adapters, the verifier's forward, the log's root anchoring, revocation lists) does
// this one way; each keeps its own error type and wording by mapping the fault it is handed. A URL's userinfo is
// sent as Basic authorization to that origin alone (P580: fetch refuses such a URL; no redirect is followed).
import { AnswerTooLarge, DEFAULT_MAX_ANSWER_BYTES, isRedirect, readBoundedBytes } from './bounded-body.ts';
import { errorWithoutSecrets } from './redact-url.ts';
import { withBasicAuthorization } from './url-credentials.ts';

/** Why an exchange gave no usable answer; a caller turns it into its own error. */
export type BoundedFetchFault =
  | { readonly kind: 'redirect'; readonly status: number }
  | { readonly kind: 'too-large'; readonly error: AnswerTooLarge }
  /** The whole exchange outlasted `timeoutMs` (while connecting, waiting, or reading the body). */
  | { readonly kind: 'timeout'; readonly error: Error; readonly timeoutMs: number }
  /** Anything else: refused connection, reset, DNS, a bad certificate, the caller's own signal. */
  | { readonly kind: 'unreachable'; readonly error: Error };

/** Thrown when the caller gives no `failWith`: the fault, with a plain message. */
export class BoundedFetchError extends Error {
  override readonly name = 'BoundedFetchError';
  readonly fault: BoundedFetchFault;

  constructor(fault: BoundedFetchFault) {
    super(faultMessage(fault), fault.kind === 'redirect' ? {} : { cause: fault.error });
    this.fault = fault;
  }
}

function faultMessage(fault: BoundedFetchFault): string {
  switch (fault.kind) {
    case 'redirect':
      return `HTTP ${fault.status} (redirects are not followed: configure the final URL)`;
    case 'timeout':
      return `did not answer within ${fault.timeoutMs} ms (body included)`;
    default:
      return fault.error.message;
  }
}

export interface FetchBoundedOptions extends Omit<RequestInit, 'redirect'> {
  /** The whole exchange, body included. A caller's own `signal` still aborts it earlier. */
  readonly timeoutMs: number;
  /** Largest body read (default DEFAULT_MAX_ANSWER_BYTES, 16 MiB). */
  readonly maxBytes?: number;
  /** The fetch to call (tests, a caller's injected one); default the global fetch. */
  readonly fetch?: typeof fetch;
  /** Statuses whose body is not wanted (a revocation list's 304): it is cancelled and `bytes` is empty. */
  readonly readBody?: (status: number) => boolean;
  /** The caller's error for a fault; default a BoundedFetchError. */
  readonly failWith?: (fault: BoundedFetchFault) => Error;
}

/** What the upstream answered, read in full. Any status is an answer: judging it is the caller's. */
export interface BoundedAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  /** The body as UTF-8 text. */
  text(): string;
}

/**
 * The thrown value as an Error fit to print (P540): fetch's refusal of a URL with credentials repeats the URL whole,
 * and every caller puts the error's message in its own (a /verify warning, the CLI's verdict, a log line).
 */
function asError(cause: unknown, url: string | URL, asked: string | URL): Error {
  const error = errorWithoutSecrets(cause instanceof Error ? cause : new Error(String(cause)), String(url));
  // The URL asked (userinfo moved to a header) may be repeated too, its query with it.
  return asked === url ? error : errorWithoutSecrets(error, String(asked));
}

export async function fetchBounded(url: string | URL, options: FetchBoundedOptions): Promise<BoundedAnswer> {
  const { timeoutMs, maxBytes, fetch: doFetch = fetch, readBody, failWith, signal, ...init } = options;
  const fail = failWith ?? ((fault: BoundedFetchFault) => new BoundedFetchError(fault));
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let bytes: Uint8Array = new Uint8Array(0);
  const asked = withBasicAuthorization(url, init.headers);
  try {
    response = await doFetch(asked.url, {
      ...init,
      ...(asked.headers === undefined ? {} : { headers: asked.headers }),
      redirect: 'manual',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const unread = isRedirect(response) || (readBody !== undefined && !readBody(response.status));
    if (unread) await response.body?.cancel().catch(() => undefined);
    else bytes = await readBoundedBytes(response, maxBytes ?? DEFAULT_MAX_ANSWER_BYTES);
  } catch (cause) {
    if (cause instanceof AnswerTooLarge) throw fail({ kind: 'too-large', error: cause });
    // The undici error says only "aborted": the signal says whether it was this exchange's own timeout.
    if (timeout.aborted && !signal?.aborted)
      throw fail({ kind: 'timeout', error: asError(cause, url, asked.url), timeoutMs });
    throw fail({ kind: 'unreachable', error: asError(cause, url, asked.url) });
  }
  if (isRedirect(response)) throw fail({ kind: 'redirect', status: response.status });
  const { status, headers } = response;
  return {
    status,
    ok: status >= 200 && status <= 299,
    headers,
    bytes,
    text: () => new TextDecoder().decode(bytes),
  };
}
