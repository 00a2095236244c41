// What a full verification cache holds (issue 14 item 5, P81): the analysis, not the passport's public keys
// once the key directory has stored them. Each cached analysis used to pin its bundle's PassportKeys
// (~10 KB of keys for a standard bundle) for as long as it stayed cached: 100 MB and more with 10,000
// entries. Over HTTP, with the records mounted; the directory's feed is the records plugin's own, wrapped
// to keep a weak reference to what it was given.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildSignedBundle } from '@proto/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifiedBundleEvent } from '../src/records/key-binding-feeder.ts';
import { loadRecordsConfig, mountRecords } from '../src/records/plugin.ts';
import { metricValue, startApp } from '../src/test-support.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

describe('the verification cache after a verified miss', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'proto-cache-retention-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the analysis (the next request is a hit) but lets the stored passport keys go', async () => {
    const fed: { passport: WeakRef<object>; stored: Promise<boolean> }[] = [];
    // Registered after the records: wraps the feeder they decorated the app with.
    const watchFeed = fp(async (app: FastifyInstance) => {
      const feeder = app.bundleVerified!;
      app.bundleVerified = (event: VerifiedBundleEvent) => {
        const stored = feeder(event);
        fed.push({ passport: new WeakRef(event.passport), stored });
        return stored;
      };
    });
    const records = await mountRecords(
      loadRecordsConfig({ DATA_DIR: await mkdtemp(join(dataDir, 'store-')) }),
    );
    const running = await startApp(
      { VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0', VERIFICATION_CACHE_MAX_ENTRIES: '100' },
      [records, watchFeed],
    );
    try {
      const body = JSON.stringify({ signed_bundle: buildSignedBundle().signed_bundle });
      const post = () =>
        fetch(`${running.url}/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
      const miss = await post();
      expect(((await miss.json()) as { verified: boolean }).verified).toBe(true);
      expect(miss.headers.get('x-verification-cache')).toBe('miss');
      expect(fed).toHaveLength(1);
      expect(await fed[0]!.stored).toBe(true);
      // The runner's own continuation of the feed runs after the promise above has settled.
      await new Promise((r) => setTimeout(r, 50));
      collectGarbage();
      expect(fed[0]!.passport.deref()).toBeUndefined();

      const hit = await post();
      expect(((await hit.json()) as { verified: boolean }).verified).toBe(true);
      expect(hit.headers.get('x-verification-cache')).toBe('hit');
      // Stored once: a hit does not feed the directory again.
      expect(fed).toHaveLength(1);
    } finally {
      await running.close();
    }
  });

  it('counts passport keys a false verdict keeps against VERIFICATION_CACHE_MAX_BYTES, and stops counting stored ones', async () => {
    const records = await mountRecords(
      loadRecordsConfig({ DATA_DIR: await mkdtemp(join(dataDir, 'store-')) }),
    );
    const running = await startApp(
      { VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0', VERIFICATION_CACHE_MAX_ENTRIES: '100' },
      [records],
    );
    const cacheBytes = () => metricValue(running.url, 'proto_verification_cache_bytes');
    const post = (bundle: unknown) =>
      fetch(`${running.url}/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ signed_bundle: bundle }),
      });
    try {
      // Signed ten days ago: its session has expired, so the verdict is false (time-dependent), the analysis
      // is cached, and the directory never stores its keys. Anyone can sign such a bundle, keys of any size.
      const expired = buildSignedBundle({ now: new Date(Date.now() - 10 * 86_400_000) }).signed_bundle;
      const refused = await post(expired);
      expect(((await refused.json()) as { verified: boolean }).verified).toBe(false);
      expect(refused.headers.get('x-verification-cache')).toBe('miss');
      const withKeys = await cacheBytes();
      const keyText = JSON.stringify(expired)
        .match(/"public_key_b64":"[^"]+"/g)!
        .join('').length;
      // The analysis alone is a few KB; its passport's public keys come on top.
      expect(withKeys).toBeGreaterThan(keyText / 2);

      // A verified bundle's keys are counted until the directory has stored them, then released.
      const before = await cacheBytes();
      const fine = await post(buildSignedBundle().signed_bundle);
      expect(((await fine.json()) as { verified: boolean }).verified).toBe(true);
      await new Promise((r) => setTimeout(r, 100));
      const after = await cacheBytes();
      expect(after - before).toBeLessThan(withKeys);
      expect(after - before).toBeGreaterThan(0);
    } finally {
      await running.close();
    }
  });
});
