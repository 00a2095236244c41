// The revocation service's alerting metrics over GET /metrics: the current list's next_update (the
// RevocationListExpiring rule) and the issue-failure counter. Issue 16 item 3.
import { createStoreTarget, testDatabaseUrl } from '@proto/store/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './test-support.ts';

const running: RunningService[] = [];
afterEach(async () => {
  for (const service of running.splice(0)) await service.close();
});

function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('revocation metrics', () => {
  it("exports the current list's next_update as Unix seconds, and no issue failure", async () => {
    const service = await startService({ env: { LIST_VALIDITY_S: '3600' } });
    running.push(service);
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const nextUpdate = sample(text, 'proto_revocation_list_next_update_timestamp_seconds');
    expect(nextUpdate).toBeDefined();
    const inSeconds = (nextUpdate as number) - Date.now() / 1000;
    expect(inSeconds).toBeGreaterThan(3500);
    expect(inSeconds).toBeLessThanOrEqual(3600);
    expect(sample(text, 'proto_revocation_list_issue_failures_total')).toBe(0);
  });

  it.skipIf(testDatabaseUrl() === undefined)(
    'counts a failed issue round (its tables gone under it)',
    async () => {
      const target = await createStoreTarget('postgres', 'revocation-metrics');
      const service = await startService({ store: target.fresh('issue'), timer: false });
      running.push(service);
      const scrape = async () => (await fetch(`${service.url}/metrics`)).text();
      expect(sample(await scrape(), 'proto_revocation_list_issue_failures_total')).toBe(0);
      // Drops the service's schema: its next round fails for real.
      await target.cleanup();
      service.app.revocationPublisher.start();
      await new Promise((resolve) => setTimeout(resolve, 500));
      service.app.revocationPublisher.stop();
      expect(sample(await scrape(), 'proto_revocation_list_issue_failures_total')).toBe(1);
    },
  );
});
