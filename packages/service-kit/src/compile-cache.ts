// Node's compile cache (each module's type-stripped code and V8 code cache) for a service and the threads
// it starts, also when NODE_COMPILE_CACHE is not set (P119; the image sets it, P36). Imports nothing of
// the stack: a service's entry calls it before it loads its own modules, which the cache then covers.
import { constants, enableCompileCache, getCompileCacheDir } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Where the cache goes when NODE_COMPILE_CACHE is not set: the directory `pnpm start` gives it, beside the
 * code it caches and with the same owner. A shared temp directory would let another local user plant
 * code for the service to run (a cache entry is code, checked only against the source's hash).
 */
export const DEFAULT_COMPILE_CACHE_DIR = fileURLToPath(
  new URL('../../../node_modules/.cache/node-compile', import.meta.url),
);

export type CompileCacheState =
  | { readonly on: true; readonly directory: string }
  | { readonly on: false; readonly directory?: string; readonly reason: string };

let started: CompileCacheState | undefined;

/**
 * Turns the cache on for this thread, in NODE_COMPILE_CACHE or else DEFAULT_COMPILE_CACHE_DIR, and
 * exports the directory in NODE_COMPILE_CACHE so that worker threads (which read it when they start;
 * `module.enableCompileCache` reaches only the calling thread) use the same cache. Never throws: a
 * directory that cannot be created (read-only file system, a path under a file) leaves the cache off,
 * and the state says why. NODE_DISABLE_COMPILE_CACHE keeps it off. Idempotent.
 */
export function startCompileCache(env: NodeJS.ProcessEnv = process.env): CompileCacheState {
  if (started) return started;
  if (env['NODE_DISABLE_COMPILE_CACHE']) {
    started = { on: false, reason: 'NODE_DISABLE_COMPILE_CACHE is set' };
    return started;
  }
  const directory = env['NODE_COMPILE_CACHE'] || DEFAULT_COMPILE_CACHE_DIR;
  let result: ReturnType<typeof enableCompileCache>;
  try {
    result = enableCompileCache(directory);
  } catch (error) {
    started = { on: false, directory, reason: error instanceof Error ? error.message : String(error) };
    return started;
  }
  const { ENABLED, ALREADY_ENABLED } = constants.compileCacheStatus;
  if (result.status === ENABLED || result.status === ALREADY_ENABLED) {
    env['NODE_COMPILE_CACHE'] = directory;
    started = { on: true, directory: getCompileCacheDir() ?? directory };
  } else {
    started = { on: false, directory, reason: result.message ?? `status ${result.status}` };
  }
  return started;
}

/** What startCompileCache found, for the service's start-up log; undefined when it never ran. */
export function compileCacheState(): CompileCacheState | undefined {
  return started;
}
