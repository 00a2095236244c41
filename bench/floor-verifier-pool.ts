// The pieces of the verification service that the floor verifier's variants (bench/floor-verifier-server.ts,
// P136) swap in one at a time: the pool's options as the service derives them from its configuration
// (services/verification app.ts → pool.ts) and the verifier options its threads are built from. Read in the
// bench's process and handed to the server as JSON, so that a server variant whose main thread the service's
// modules would not be in does not load them.
import { loadVerificationConfig, portableVerifierOptions } from '@proto/verification';

/** What the server needs of the service's configuration, as JSON in FLOOR_VERIFIER_POOL. */
export interface FloorPoolSettings {
  readonly threads: number;
  readonly minThreads: number;
  readonly idleTimeoutMs: number;
  readonly maxQueue: number;
  readonly verifier: ReturnType<typeof portableVerifierOptions>;
}

/**
 * The service's pool settings under `env` (over this process's environment), as app.ts builds its VerifyPool:
 * `env` carries what bench-service.ts gives the service (VERIFY_WORKERS, VERIFY_QUEUE_MAX, mode, backend).
 */
export function floorPoolSettings(env: Readonly<Record<string, string>>): FloorPoolSettings {
  const config = loadVerificationConfig({ ...process.env, ...env });
  return {
    threads: config.VERIFY_WORKERS,
    minThreads: config.VERIFY_WORKERS_MIN,
    idleTimeoutMs: config.VERIFY_WORKER_IDLE_MS,
    maxQueue: config.VERIFY_QUEUE_MAX,
    verifier: portableVerifierOptions(config),
  };
}
