// P472 over HTTP: a retirement another replica writes with a clock five minutes behind (or, the same to a reader,
// commits long after it was dated) is warned about by a running verification service at its next refresh of the
// filter of retired kids, not only after a restart. The service is real, its records on a store of each dialect; the
// lagging replica is a second store on the same database whose clock is five minutes slow.
import { createNativeBackend, generateBundleKeys } from '@proto/core';
import { dialectsUnderTest, kid, passport } from '@proto/store/testing';
import { describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/test-support.ts';
import {
  agentBundles,
  agentIdOf,
  MINUTE,
  retiredWarningsAt,
  sharedStoreServices,
} from './retired-kid-services.ts';

const backend = createNativeBackend();

describe.each(dialectsUnderTest())('a retirement dated five minutes back, on %s (P472)', (dialect) => {
  const services = sharedStoreServices(dialect, 'retired-kid-late');
  let app: RunningApp | undefined;

  const agent = generateBundleKeys(backend);
  const rotated = generateBundleKeys(backend);
  const { bundleAt } = agentBundles();
  const verify = (built: ReturnType<typeof bundleAt>) => retiredWarningsAt(`${app?.url}`, built);

  it('is warned about at the next refresh', async () => {
    // Some replica on time retired a key of another agent before the service started: its filter has read it.
    // (On SQLite the service's file is verification.sqlite under DATA_DIR: the stores here open that one.)
    const onTime = await services.target.open({ name: 'verification' });
    await onTime.keys.applyPassport(
      passport('agent:late-other', '2026-01-01T00:00:00Z', 'sha256:o1', [kid('1'), kid('2')]),
    );
    await onTime.keys.applyPassport(
      passport('agent:late-other', '2026-01-02T00:00:00Z', 'sha256:o2', [kid('1')]),
    );

    app = await services.start({ RETIRED_KEY_REFRESH_SECONDS: '1' });

    // The agent's first passport, through the service, binds both key sets.
    const first = bundleAt(0, agent, [agent, rotated]);
    const id = agentIdOf(first);
    expect(await verify(first)).toEqual([]);
    for (let n = 0; n < 100; n++) {
      const res = await fetch(`${app.url}/v2/keys/${rotated.classical.kid}`);
      await res.arrayBuffer();
      if (res.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // A replica whose clock is five minutes slow applies a newer passport of the agent (signed by its live key)
    // that no longer lists the second key set: retired, dated five minutes back.
    const lagging = await services.target.open({
      name: 'verification',
      clock: () => new Date(Date.now() - 5 * MINUTE),
    });
    const liveKids = [agent.classical.kid, ...(agent.pq === undefined ? [] : [agent.pq.kid])];
    const outcome = await lagging.keys.applyPassport(
      passport(
        id,
        new Date(Date.now() - 10 * MINUTE).toISOString(),
        'sha256:late',
        liveKids,
        [],
        agent.classical.kid,
      ),
    );
    expect(outcome.retired, JSON.stringify(outcome)).toBeGreaterThan(0);

    // The service's refresh runs every second: within ten, a bundle signed by the retired key is warned about.
    const deadline = Date.now() + 10_000;
    let warnings: string[] = [];
    for (let n = 0; warnings.length === 0 && Date.now() < deadline; n += 1) {
      if (n > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      warnings = await verify(bundleAt(6 + n / 1000, rotated, [agent, rotated], id));
    }
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain(rotated.classical.kid);
  });
});
