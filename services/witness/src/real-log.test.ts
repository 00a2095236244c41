// The witness against the project's real transparency log, both listening on real HTTP: the log's own
// checkpoints (Ed25519 + ML-DSA-65 lines) and consistency proofs are cosigned, and a stale submission
// learns the witnessed size. c2sp.org/tlog-witness; issue 18 item 2.
import { createHash } from 'node:crypto';
import { encodeBase64, formatAddCheckpointRequest, parseCosignerKey, verifyCosignatures } from '@proto/core';
import { listenOnPort0, type TempDir, tempDir } from '@proto/testing';
import { buildTransparencyLog, loadTransparencyLogConfig } from '@proto/transparency-log';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWitness } from './test-support.ts';

const TOKEN = 'witness-test-log-operator-token-0123456789';

describe('witness cosigning the real transparency log', () => {
  const dirs: TempDir[] = [];
  const closers: Array<() => Promise<void>> = [];
  let logUrl = '';
  let logApp: FastifyInstance;

  beforeAll(async () => {
    const dir = await tempDir('witness-real-log');
    dirs.push(dir);
    logApp = await buildTransparencyLog({
      config: loadTransparencyLogConfig({
        LOG_LEVEL: 'silent',
        DATA_DIR: dir.dir,
        BATCH_WAIT_MS: '2',
        ADD_RATE_LIMIT_PER_MINUTE: '0',
        MAX_EVENT_LOOP_DELAY_MS: '0',
        OPERATOR_TOKEN: TOKEN,
        LOG_ORIGIN: 'log.test/real',
      }),
      logger: false,
      timers: false,
    });
    const listening = await listenOnPort0(logApp);
    closers.push(listening.close);
    logUrl = listening.url;
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    for (const dir of dirs) await dir.remove();
  });

  async function append(n: number, tag: string): Promise<void> {
    for (let i = 0; i < n; i++) {
      const hash = `sha256:${createHash('sha256').update(`${tag}:${i}`).digest('hex')}`;
      const response = await fetch(`${logUrl}/add`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ bundle_hash: hash }),
      });
      expect(response.status).toBe(201);
    }
  }

  async function signedCheckpoint(): Promise<{ note: string; size: number; vkeys: string[] }> {
    const body = (await (await fetch(`${logUrl}/root/signed`)).json()) as {
      checkpoint: string;
      tree_size: number;
      verifier_keys: string[];
    };
    return { note: body.checkpoint, size: body.tree_size, vkeys: body.verifier_keys };
  }

  it('cosigns the log’s checkpoints with its real consistency proofs', async () => {
    const { transparencyLog } = logApp;
    await append(5, 'first');
    await transparencyLog.checkpointer.tick();
    const first = await signedCheckpoint();
    expect(first.size).toBe(5);
    expect(first.vkeys).toHaveLength(2);

    const dir = await tempDir('witness-real-log-w');
    dirs.push(dir);
    const app = await buildTestWitness(dir.dir, { WITNESS_LOGS: first.vkeys.join(' ') });
    const witness = await listenOnPort0(app);
    closers.push(witness.close);
    const key = parseCosignerKey(app.witness.vkey);
    if (!key.ok) throw new Error(key.error.message);
    const submit = async (body: string) => {
      const response = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body });
      return { status: response.status, text: await response.text() };
    };

    const answer = await submit(
      formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpoint: first.note }),
    );
    expect(answer.status).toBe(200);
    expect(verifyCosignatures(first.note + answer.text, [key.value]).ok).toBe(true);

    await append(7, 'second');
    await transparencyLog.checkpointer.tick();
    const second = await signedCheckpoint();
    expect(second.size).toBe(12);
    const consistency = (await (await fetch(`${logUrl}/consistency?first=5&second=12`)).json()) as {
      proof: string[];
    };
    const proof = consistency.proof.map((hex) => Buffer.from(hex, 'hex'));
    const next = await submit(formatAddCheckpointRequest({ oldSize: 5, proof, checkpoint: second.note }));
    expect(next.status).toBe(200);
    const verified = verifyCosignatures(second.note + next.text, [key.value]);
    expect(verified.ok && verified.value.map((v) => v.key.name)).toEqual(['witness.test/w1']);

    // A log that lost track (old 0 again) learns the witnessed size from the 409.
    const stale = await submit(
      formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpoint: second.note }),
    );
    expect(stale).toEqual({ status: 409, text: '12\n' });
    // A doctored proof line is refused, not cosigned.
    const doctored = [...proof];
    doctored[0] = Buffer.alloc(32, 1);
    const bad = formatAddCheckpointRequest({ oldSize: 12, proof: [], checkpoint: second.note }).replace(
      'old 12\n',
      `old 12\n${encodeBase64(doctored[0])}\n`,
    );
    expect((await submit(bad)).status).toBe(422);
  });
});
