// Revocation list source URLs: https only (loopback excepted) and never shown with their secrets.
// Implements issue 12 rows k (no plain http: to a remote list) and l (URLs without userinfo or query in replies:
// @proto/clients' redactUrl, P540).

/** 127.0.0.0/8, ::1 and localhost: plain http: stays on this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Splits userinfo off a URL (fetch refuses URLs carrying credentials): the URL without it, and the
 * Basic Authorization header value made from it, when there was any.
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
