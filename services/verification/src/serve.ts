// The verification service proper, loaded by main.ts once the compile cache is on: configuration, app, listen.
// SPEC.md verification service (port 3000); docs/architecture.md §3 (validated config, graceful shutdown).
import { runService } from '@proto/service-kit';
import { buildVerificationApp, SERVICE_NAME } from './app.ts';
import { loadVerificationConfig } from './config.ts';
import { mountRecords } from './records/index.ts';

await runService(
  async () => {
    const config = loadVerificationConfig();
    // The /v2 records open their store from the validated config and close it with the app.
    return buildVerificationApp({ config, extraPlugins: [await mountRecords(config)] });
  },
  { name: SERVICE_NAME },
);
