// The security headers of every response, computed once at startup from Helmet's own settings and
// written from the kit's request hook. docs/architecture.md §3 (runtime); P113.
import helmet from '@fastify/helmet';
import Fastify from 'fastify';

/** Helmet's settings for the whole API (the console's pages replace the CSP on their own routes). */
export const HELMET_OPTIONS = {
  global: true,
  frameguard: { action: 'deny' },
  hsts: { maxAge: 63_072_000, includeSubDomains: true },
} as const;

/** Header names as Helmet writes them (their case reaches the wire) with their values, in its order. */
export type SecurityHeaders = readonly (readonly [name: string, value: string])[];

/**
 * @fastify/helmet rebuilds Helmet's middleware from its options on every request (CSP directives
 * parsed and validated again) behind two hooks, one async, and P98's profile of the main thread
 * counted it among the service's own costs. The headers never depend on the request when no route
 * has its own Helmet settings or nonces (none has), so they are taken once: Helmet answers one
 * in-memory request of a throwaway instance, and the names and values it set are kept.
 */
export async function computeSecurityHeaders(): Promise<SecurityHeaders> {
  const scratch = Fastify({ logger: false });
  let captured: SecurityHeaders = [];
  try {
    await scratch.register(helmet, HELMET_OPTIONS);
    scratch.get('/', (_request, reply) => {
      // Node's ServerResponse has getRawHeaderNames (OutgoingMessage); @types/node declares it on ClientRequest only.
      const raw = reply.raw as typeof reply.raw & { getRawHeaderNames(): string[] };
      captured = raw.getRawHeaderNames().map((name) => [name, String(raw.getHeader(name))] as const);
      reply.send('');
    });
    await scratch.inject({ method: 'GET', url: '/' });
  } finally {
    await scratch.close();
  }
  if (captured.length === 0) throw new Error('Helmet set no security headers');
  return captured;
}

/** Writes the headers on the raw response, where Helmet wrote them, so they keep their place and case. */
export function writeSecurityHeaders(
  response: { setHeader(name: string, value: string): unknown },
  headers: SecurityHeaders,
): void {
  for (const [name, value] of headers) response.setHeader(name, value);
}
