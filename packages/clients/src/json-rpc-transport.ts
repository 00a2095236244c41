// viem's HTTP transport for a JSON-RPC node the stack does not trust (P155, P162, P167, P177): each request is one
// fetchBounded exchange, so the timeout covers the body, the answer is read up to a cap and a redirect is refused
// rather than followed to a host the operator never named. Used by `proto anchor deploy-contract` and the anchor
// service's EVM adapter. Its own subpath (not the package index) so that services that never call a chain do not
// load viem.
import { type HttpTransport, http } from 'viem';
import { fetchBounded } from './fetch-bounded.ts';

/** Statuses a Response may not be built with a body for (the Fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export interface BoundedFetchFnOptions {
  /** The whole exchange, body included. */
  readonly timeoutMs: number;
  /** Largest answer read (default DEFAULT_MAX_ANSWER_BYTES, 16 MiB). */
  readonly maxBytes?: number;
}

/**
 * A `fetchFn` for viem: one bounded exchange handed back as a Response for viem to read; a redirect is an error
 * that says so. viem's own timeout signal still applies. Every fault is thrown as an Error, which viem wraps in
 * its HttpRequestError (a transport failure to its callers).
 */
export function boundedFetchFn(options: BoundedFetchFnOptions) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : input;
    const answer = await fetchBounded(url, {
      ...init,
      timeoutMs: options.timeoutMs,
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
      failWith: (fault) =>
        fault.kind === 'redirect'
          ? new Error(
              `${new URL(url).origin} answered HTTP ${fault.status} (redirects are not followed: give the final URL)`,
            )
          : fault.error,
    });
    return new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.bytes, {
      status: answer.status,
      headers: answer.headers,
    });
  };
}

/**
 * viem's http transport through boundedFetchFn, without retries (the callers retry on their own terms). viem's
 * own 10 MiB cap is lifted: the answer it reads is already in memory and bounded at `maxBytes`, and two caps
 * would refuse an answer between them in viem's words, an error its callers do not read as a transport fault.
 */
export function boundedHttpTransport(url: string, options: BoundedFetchFnOptions): HttpTransport {
  return http(url, {
    retryCount: 0,
    timeout: options.timeoutMs,
    maxResponseBodySize: false,
    fetchFn: boundedFetchFn(options),
  });
}
