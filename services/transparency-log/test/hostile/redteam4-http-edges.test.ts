// redteam4 (P585, P586): anyone on the network, against the real log over raw TCP. (1) A Host, X-Forwarded-*,
// Forwarded or absolute-form target naming the attacker's host must land in no answer (a Location, the docs, a
// checkpoint, an entry it appended) nor in what a later plain reader gets. (2) Framings a front and the log could
// read differently (Content-Length with Transfer-Encoding, two lengths, a coding list, obs-fold, bare LF, a 64-bit
// chunk size, two Hosts) must be 400 with the connection closed, and no entry appended by any of them.
import { documentedGetPaths, framingFaults, hostLeaks, postWithAttackerOrigin } from '@proto/testing';
import { describe, expect, it } from 'vitest';
import { bundleHash, OPERATOR_AUTH } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const log = listeningLogForFile('redteam4-http-edges');

const ADD_HEADERS = [`Authorization: ${OPERATOR_AUTH.authorization}`, 'Content-Type: application/json'];
const addBody = (tag: string) => JSON.stringify({ bundle_hash: bundleHash(0, tag) });

describe('redteam4: Host and framing edges on the log', () => {
  it("never names an attacker's host in an answer, an entry or a checkpoint (P586)", async () => {
    const added = await postWithAttackerOrigin(log().url, '/add', ADD_HEADERS, addBody('origin'));
    expect(added.status).toBe(201);
    await log().app.transparencyLog.checkpointer.tick();
    const paths = await documentedGetPaths(log().url, () => '0');
    expect(await hostLeaks(log().url, [...paths, '/checkpoint', '/'])).toEqual([]);
  });

  it('refuses every smuggling framing with 400 and a closed connection, appending nothing (P585)', async () => {
    const before = (await (await fetch(`${log().url}/health`)).json()) as { tree_size: number };
    expect(await framingFaults(log().url, '/add', ADD_HEADERS, addBody)).toEqual([]);
    const after = (await (await fetch(`${log().url}/health`)).json()) as {
      tree_size: number;
      pending: number;
    };
    expect([after.tree_size, after.pending]).toEqual([before.tree_size, 0]);
  });
});
