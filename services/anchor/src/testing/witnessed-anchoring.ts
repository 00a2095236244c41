// Test support: a bundle anchored on the transparency-log chain through the witnessed log front, the set-up of
// the witness-quorum tests of /verify and the CLI (issue 18 item 2; P59, P60).
import { createStoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { getReceipt, postAnchor, testApp } from './app.ts';
import { type LogTestServer, startLogServer } from './log-server.ts';
import { startWitnessedLogFront, type WitnessedLogFront } from './witnessed-log.ts';

export interface WitnessedAnchoring {
  readonly log: LogTestServer;
  /** The log as the anchor service and the verifiers see it, with the cosignature lines the test sets. */
  readonly front: WitnessedLogFront;
  readonly anchor: FastifyInstance;
  /** The empty log's signed note, taken before the bundle was appended: older than the receipt. */
  readonly emptyCheckpoint: string;
  /** The bundle's confirmed receipt, covered by the log's newest checkpoint. */
  readonly receipt: Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * The real log, the witnessed front before it and the anchor service (on SQLite, files named by `label`,
 * `anchorEnv` added to its configuration), with `bundleHash` anchored through the front and a checkpoint
 * signed over it.
 */
export async function startWitnessedAnchoring(
  label: string,
  bundleHash: string,
  anchorEnv: Record<string, string> = {},
): Promise<WitnessedAnchoring> {
  // Closed last-started first, also when the set-up fails half-way.
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const log = await startLogServer();
    closers.push(() => log.close());
    const front = await startWitnessedLogFront(log.url);
    closers.push(() => front.close());
    const target = await createStoreTarget('sqlite', label);
    closers.push(() => target.cleanup());
    await log.checkpoint();
    const emptyCheckpoint = await (await fetch(`${log.url}/checkpoint`)).text();
    const anchor = await testApp(
      { TL_URL: front.url, TL_TOKEN: log.token, ...anchorEnv },
      await target.open(),
    );
    closers.push(() => anchor.close());
    const posted = await postAnchor(anchor, bundleHash, 'transparency-log');
    if (posted.statusCode !== 202) throw new Error(`POST /anchor: ${posted.statusCode} ${posted.body}`);
    await anchor.anchorWorker.run('transparency-log', true);
    await log.checkpoint();
    return { log, front, anchor, emptyCheckpoint, receipt: await getReceipt(anchor, bundleHash), close };
  } catch (error) {
    await close();
    throw error;
  }
}
