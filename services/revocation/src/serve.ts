// The revocation service proper, loaded by main.ts once the compile cache is on: configuration, app, listen on :3003.
// SPEC.md "Revocation service" / "Attestation service"; docs/architecture.md §3 (validated config, graceful shutdown).
import { runService } from '@proto/service-kit';
import { buildRevocationApp, SERVICE_NAME } from './app.ts';
import { loadRevocationConfig } from './config.ts';

await runService(async () => buildRevocationApp({ config: loadRevocationConfig() }), { name: SERVICE_NAME });
