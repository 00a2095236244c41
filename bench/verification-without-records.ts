// The verification service as main.ts builds it, minus the /v2 records (and so minus their key directory):
// the "key directory off" side of `pnpm bench`'s on/off pair. Issue 15 ("costs /verify no measurable throughput").
import { runService } from '@proto/service-kit';
import { buildVerificationApp, loadVerificationConfig, SERVICE_NAME } from '@proto/verification';

await runService(async () => buildVerificationApp({ config: loadVerificationConfig() }), {
  name: SERVICE_NAME,
});
