// Reading a revocation list over HTTP: a size cap while streaming, and the freshness lifetime from
// Cache-Control and Age. Used by the revocation checker (revocation-client.ts); D20.
class ListTooLarge extends Error {}

export async function readCapped(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max)
    throw new ListTooLarge(`list of ${declared} bytes exceeds ${max}`);
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw new ListTooLarge(`list exceeds ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
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
