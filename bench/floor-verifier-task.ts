// The task the verification service's /verify route hands its pool for a JSON body with the cache off
// (services/verification verification-run.ts), built the same way by the floor verifier's variants that run the
// service's worker task (bench/floor-verifier-server.ts, P136). Types only: importing this loads no service code.
import type { VerifyTask } from '@proto/verification';

/**
 * The task verification-run.ts builds for a JSON /verify body with the cache off: the body read in the thread,
 * no analysis kept, the key bindings asked for (the records are always mounted, serve.ts), the answer written
 * in the thread as JSON (the route asks for JSON unless Accept prefers CBOR), no revocation configured.
 */
export function serviceTaskOf(body: Uint8Array): VerifyTask {
  return {
    body,
    format: 'json',
    wantAnalysis: false,
    wantBindings: true,
    now: Date.now(),
    answer: 'json',
    revocationConfigured: false,
  };
}
