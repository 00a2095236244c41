// Revocation list source URLs: https only (loopback excepted) and never shown with their secrets.
// Implements issue 12 rows k (no plain http: to a remote list) and l (URLs without userinfo or query in replies:
// @proto/clients' redactUrl, P540).

/** 127.0.0.0/8, ::1 and localhost: plain http: stays on this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
