// The transparency log proper, loaded by main.ts once the compile cache is on: configuration, app, listen on :3002.
// SPEC.md "Transparency log service"; docs/architecture.md §3 (validated config, graceful shutdown).
import { runService } from '@proto/service-kit';
import { buildTransparencyLog, SERVICE_NAME } from './app.ts';
import { loadTransparencyLogConfig } from './config.ts';

await runService(async () => buildTransparencyLog({ config: loadTransparencyLogConfig() }), {
  name: SERVICE_NAME,
});
