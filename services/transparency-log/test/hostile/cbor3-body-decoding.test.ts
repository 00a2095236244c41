// Brief "cbor3" (P590): the log's one body-taking route, POST /add, refuses the hostile CBOR and JSON table (duplicate
// keys, values JSON has no form for, tags, indefinite lengths, lying lengths, prototype members, lone surrogates,
// 1e400, UTF-16) with 400 PROTO-E001 in its reader's words, and appends nothing. The real log over HTTP.
import { hostileBodies, hostileMismatches } from '@proto/testing';
import { describe, expect, it } from 'vitest';
import { bundleHash, OPERATOR_AUTH } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const log = listeningLogForFile('cbor3-body-decoding');

describe('P590: hostile bodies on POST /add', () => {
  it('every hostile body is 400 E001 (415 for a foreign charset), and the log stays empty', async () => {
    const table = hostileBodies({ bundle_hash: bundleHash(1, 'cbor3') });
    expect(await hostileMismatches(`${log().url}/add`, table, { headers: OPERATOR_AUTH })).toEqual([]);
    const checkpoint = await fetch(`${log().url}/checkpoint`);
    expect((await checkpoint.text()).split('\n')[1]).toBe('0');
  });
});
