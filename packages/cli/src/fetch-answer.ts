// One GET of a URL the user gave the `proto` command (a revocation list, an attestation, a receipt, a log's lookup,
// proof, checkpoint or tiles), read as the services read their upstreams (P154–P156, P162): the timeout covers the
// whole exchange, body included; the answer is read through @proto/clients' bounded reader; a redirect is not
// followed (it could lead to a host, or plain http:, the user never named). Each failure is one line naming the URL,
// as redactUrl shows it: its userinfo or query may be the user's key, and the line may land in a CI log (P540).
import { redactUrl } from '@proto/clients/redact-url';
import { CliError } from './io.ts';

/** The answer could not be used: unreachable, too slow, too large, or a redirect. Exit 2 unless a caller maps it. */
export class UnusableAnswer extends CliError {
  override readonly name = 'UnusableAnswer';
}

export interface Answer {
  readonly status: number;
  /** A 2xx status. */
  readonly ok: boolean;
  readonly bytes: Uint8Array;
  /**
   * The body as UTF-8 text, decoded when first read (a tile never is). Not fatal on purpose: a byte that is not
   * UTF-8 becomes U+FFFD, which a signed note refuses by name ("not valid UTF-8", P169) and which breaks a signed
   * document's signature; a fatal decoder would throw where those checks give their verdict.
   */
  readonly text: string;
  /** The Content-Type, for a message when the answer is not what was asked (a sign-in page is text/html). */
  readonly contentType: string;
}

export interface FetchAnswerOptions {
  /** The whole exchange, body included. */
  readonly timeoutMs: number;
  /** Largest body read (default: @proto/clients' DEFAULT_MAX_ANSWER_BYTES, 16 MiB). */
  readonly maxBytes?: number;
}

function reason(cause: Error): string {
  // undici says only "fetch failed"; what failed (ECONNREFUSED, a bad certificate) is its cause.
  return cause.cause instanceof Error ? `${cause.message}: ${cause.cause.message}` : cause.message;
}

export async function fetchAnswer(url: string, options: FetchAnswerOptions): Promise<Answer> {
  // Loaded when a command fetches, as the rest of @proto/clients: help and usage errors stay fast.
  const { fetchBounded } = await import('@proto/clients');
  const shown = redactUrl(url);
  const answer = await fetchBounded(url, {
    timeoutMs: options.timeoutMs,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    failWith: (fault) => {
      switch (fault.kind) {
        case 'redirect':
          return new UnusableAnswer(
            `${shown}: HTTP ${fault.status} (redirects are not followed: give the final URL)`,
          );
        case 'too-large':
          return new UnusableAnswer(`${shown}: ${fault.error.message}`);
        case 'timeout':
          return new UnusableAnswer(
            `${shown}: did not answer within ${options.timeoutMs} ms (body included)`,
          );
        case 'unreachable':
          return new UnusableAnswer(`${shown}: ${reason(fault.error)}`);
      }
    },
  });
  return {
    status: answer.status,
    ok: answer.ok,
    bytes: answer.bytes,
    get text() {
      return answer.text();
    },
    contentType: answer.headers.get('content-type') ?? 'none',
  };
}

/** The answer, when its status is 2xx; any other is an UnusableAnswer naming the status. */
export async function fetchOkText(url: string, options: FetchAnswerOptions): Promise<Answer> {
  const answer = await fetchAnswer(url, options);
  if (!answer.ok) throw new UnusableAnswer(`${redactUrl(url)}: HTTP ${answer.status}`);
  return answer;
}
