// Public API of the verification service package: the app factory, its configuration, cache hooks.
// SPEC.md "POST /verify" and verification-service configuration; PROTOCOL §8.3 (cache invalidation).
export {
  type BuildVerificationAppOptions,
  buildVerificationApp,
  type ExtraPlugin,
  invalidateByAgent,
  invalidateByKid,
  SERVICE_NAME,
  SERVICE_VERSION,
} from './app.ts';
export { cacheTtlMs, VerificationCache, verificationCacheKey } from './cache.ts';
export { loadVerificationConfig, VERIFICATION_ENV, type VerificationConfig } from './config.ts';
// The pool as the service runs it, for bench/worker-task-cost.ts (a thread's CPU per task, P124).
export { VerifyPool } from './pool.ts';
export { portableVerifierOptions } from './verifier-options.ts';
export type { VerifyTask } from './worker.ts';
