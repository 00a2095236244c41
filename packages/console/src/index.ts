// The web console's Fastify plugin: serves one page at `/` and the shared browser modules under /console/.
// Issue 17 (console); PREAMBLE security headers: a strict CSP that the pages satisfy (no inline script or style).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Folder of the pages and browser modules, served as-is (plain ES modules, no build step). */
export const CONSOLE_PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));

export type ConsolePage = 'verify' | 'log' | 'revocation';

export interface ConsoleOptions {
  readonly page: ConsolePage;
  /** Extra origins the page may fetch from (e.g. the transparency log of the verify page). */
  readonly connectSrc?: readonly string[];
  /** Served as /console/config.json: what the page needs to know about its deployment. */
  readonly config?: () => Record<string, unknown>;
}

/**
 * The console pages' policy: nothing but same-origin scripts and styles, no inline code, no framing,
 * no forms posting elsewhere. Stricter than the API's Helmet default (which allows inline styles).
 */
export function consoleContentSecurityPolicy(connectSrc: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${["'self'", ...connectSrc].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Only the origin of a configured URL goes into connect-src; anything unparsable is left out. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

export async function installConsole(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const csp = consoleContentSecurityPolicy(options.connectSrc);
  const indexHtml = readFileSync(new URL(`../public/${options.page}/index.html`, import.meta.url), 'utf8');
  // An encapsulated child: the CSP hook below applies to the console's routes only, not to the API.
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', csp);
      reply.header('cache-control', 'no-cache');
      return payload;
    });
    scope.get('/', { schema: { hide: true } }, async (_request, reply) => {
      return reply.type('text/html; charset=utf-8').send(indexHtml);
    });
    scope.get('/console/config.json', { schema: { hide: true } }, async () => ({
      page: options.page,
      ...(options.config?.() ?? {}),
    }));
    await scope.register(fastifyStatic, {
      root: CONSOLE_PUBLIC_DIR,
      prefix: '/console/',
      decorateReply: false,
      index: false,
      list: false,
      dotfiles: 'deny',
    });
  });
}
