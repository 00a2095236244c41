// Entry point of the verification service (`pnpm start:verification`): configuration, app, listen.
// SPEC.md verification service (port 3000); ARCHITECTURE §3 (validated config, graceful shutdown).
import { existsSync } from 'node:fs';
import { runService } from '@proto/service-kit';
import { buildVerificationApp, type ExtraPlugin, SERVICE_NAME } from './app.ts';
import { loadVerificationConfig, type VerificationConfig } from './config.ts';

/**
 * The /v2 record routes, when that part of the service is present: `src/records/index.ts` exports
 * `mountRecords(config)`, which opens what the routes need (their store) and returns the plugin to
 * register; the plugin closes its resources in an onClose hook.
 */
async function recordPlugins(config: VerificationConfig): Promise<ExtraPlugin[]> {
  const entry = new URL('./records/index.ts', import.meta.url);
  if (!existsSync(entry)) return [];
  const module = (await import(entry.href)) as {
    mountRecords?: (config: VerificationConfig) => ExtraPlugin | Promise<ExtraPlugin>;
  };
  if (typeof module.mountRecords !== 'function') {
    throw new Error('src/records/index.ts must export mountRecords(config) returning the records plugin');
  }
  return [await module.mountRecords(config)];
}

await runService(
  async () => {
    const config = loadVerificationConfig();
    return buildVerificationApp({ config, extraPlugins: await recordPlugins(config) });
  },
  { name: SERVICE_NAME },
);
