// Entry point of the verification service (`pnpm start:verification`): configuration, app, listen.
// SPEC.md verification service (port 3000); docs/architecture.md §3 (validated config, graceful shutdown).
import { applyHeapGrowingPercent, releaseSemiSpaceFlagForThreads } from './heap-settings.ts';

// Before the service's modules load (they fill old space as they do), hence the dynamic imports below.
const heapGrowingPercent = applyHeapGrowingPercent(process.env);

const { ConfigError, runService } = await import('@proto/service-kit');
const { buildVerificationApp, SERVICE_NAME } = await import('./app.ts');
const { loadVerificationConfig } = await import('./config.ts');
const { mountRecords } = await import('./records/index.ts');

await runService(
  async () => {
    const config = loadVerificationConfig();
    if (config.VERIFY_HEAP_GROWING_PERCENT !== heapGrowingPercent) {
      // Only if heap-settings.ts read the variable otherwise than the config's schema: never run unsaid.
      throw new ConfigError(
        `VERIFY_HEAP_GROWING_PERCENT: ${heapGrowingPercent} applied, ${config.VERIFY_HEAP_GROWING_PERCENT} configured`,
        ['VERIFY_HEAP_GROWING_PERCENT'],
      );
    }
    // Before the pool exists (its threads start on demand, later still).
    if (config.VERIFY_WORKER_YOUNG_GENERATION_MB > 0) releaseSemiSpaceFlagForThreads();
    // The /v2 records open their store from the validated config and close it with the app.
    return buildVerificationApp({ config, extraPlugins: [await mountRecords(config)], heapGrowingPercent });
  },
  { name: SERVICE_NAME },
);
