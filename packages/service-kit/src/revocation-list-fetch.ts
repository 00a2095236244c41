// Reading a revocation list over HTTP: what a failed fetch (fetchBounded, P167) is called, and the freshness
// lifetime from Cache-Control and Age. Used by the revocation checker (revocation-client.ts); D20.
import { type BoundedFetchFault, withoutSecrets } from '@proto/clients';
/**
 * Why a list could not be fetched, in the words the checker has always used (operators grep them; tests pin them).
 * `shown` is the source's URL with its secrets redacted; an error's text is cleaned of them too.
 */
export function listFetchProblem(fault: BoundedFetchFault, shown: string, url: string): string {
  switch (fault.kind) {
    case 'redirect':
      return `${shown} answered HTTP ${fault.status} (redirects are not followed: configure the final URL)`;
    case 'timeout':
      return `${shown}: timed out after ${fault.timeoutMs} ms`;
    case 'too-large': {
      const { declared, maxBytes } = fault.error;
      return declared === undefined
        ? `${shown}: list exceeds ${maxBytes} bytes`
        : `${shown}: list of ${declared} bytes exceeds ${maxBytes}`;
    }
    case 'unreachable':
      return `${shown}: ${withoutSecrets(fault.error.message, url)}`;
  }
}

/** Freshness lifetime from Cache-Control (max-age, minus Age); no-store/no-cache revalidate every time. */
export function freshnessLifetimeMs(headers: Headers, defaultMs: number): number {
  const cacheControl = headers.get('cache-control');
  let lifetime = defaultMs;
  if (cacheControl !== null) {
    const directives = cacheControl.split(',').map((d) => d.trim().toLowerCase());
    if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0;
    const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)).find((m) => m !== null);
    if (maxAge) lifetime = Number(maxAge[1]) * 1000;
  }
  const age = Number(headers.get('age'));
  if (Number.isFinite(age) && age > 0) lifetime -= age * 1000;
  return Math.max(0, lifetime);
}
