// The revocation service's alerting metrics over GET /metrics: the current list's next_update (the
// RevocationListExpiring rule) and the issue-failure counter. Issue 16 item 3.
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
});
