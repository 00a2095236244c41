// A URL's userinfo as the credential it is meant to be (P580, P5). fetch refuses a URL that carries credentials, yet
// that is how a server behind basic auth is written (`https://user:password@host/…`, and the RPC providers'
// `https://:<key>@host/…`, an empty user name and the key as password). Here rather than in service-kit so that
// fetchBounded (every outbound exchange: the CLI, the anchor adapters, revocation lists) splits it one way.

/**
 * Splits userinfo off a URL: the URL without it, and the Basic Authorization header value made from it, when there
 * was any (an empty user name included: the provider form).
 */
export function splitCredentials(url: URL): { url: string; authorization?: string } {
  if (url.username === '' && url.password === '') return { url: url.href };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return {
    url: bare.href,
    authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
  };
}

/**
 * `url` as fetch may ask it, with `headers` carrying its userinfo as Basic authorization. A header the caller set
 * itself wins (the verification service forwards its caller's own). A URL that does not parse is left to fetch,
 * whose refusal the caller reports. Only the origin asked gets the header: fetchBounded never follows a redirect.
 */
export function withBasicAuthorization(
  url: string | URL,
  headers: RequestInit['headers'],
): { url: string | URL; headers: RequestInit['headers'] } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, headers };
  }
  const split = splitCredentials(parsed);
  if (split.authorization === undefined) return { url, headers };
  const merged = new Headers(headers);
  if (!merged.has('authorization')) merged.set('authorization', split.authorization);
  return { url: split.url, headers: merged };
}
