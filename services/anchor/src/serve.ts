// The anchor service proper, loaded by main.ts once the compile cache is on: configuration, app, listen on
// PORT (default 3001).
// SPEC.md "POST /anchor", docs/architecture.md §3 (validated configuration, graceful shutdown), DECISIONS D19.
import { runService } from '@proto/service-kit';
import { buildAnchorService, SERVICE_NAME } from './app.ts';
import { loadAnchorConfig } from './config.ts';

await runService(
  async () => {
    const config = loadAnchorConfig();
    return buildAnchorService({
      config,
      // Tests of crash safety only: die between the broadcast and the write that records it.
      ...(config.ANCHOR_TEST_CRASH_AFTER_SEND
        ? {
            afterBroadcast: (batch) => {
              process.stderr.write(
                `anchor: test crash after sending batch ${batch.id} (${batch.tx_id ?? 'log'})\n`,
              );
              process.kill(process.pid, 'SIGKILL');
            },
          }
        : {}),
    });
  },
  { name: SERVICE_NAME },
);
