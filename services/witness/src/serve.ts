// The witness proper, loaded by main.ts once the compile cache is on: configuration, app, listen on :3004.
// c2sp.org/tlog-witness; issue 18 item 2; docs/architecture.md §3 (validated config, graceful shutdown).
import { runService } from '@proto/service-kit';
import { buildWitness, SERVICE_NAME } from './app.ts';
import { loadWitnessConfig } from './config.ts';

await runService(async () => buildWitness({ config: loadWitnessConfig() }), { name: SERVICE_NAME });
