// The witness quorum's tally of a log checkpoint (P60): a note that does not parse is the log's answer without the
// shape of one (P169, P161), skipped E701 and retryable, not a failed receipt; a quorum not met still fails E103.
import { cosignerKey, selectCryptoBackend } from '@proto/core';
import { describe, expect, it } from 'vitest';
import { checkWitnessedCheckpoint } from './log-witnesses.ts';

function witness(name: string) {
  const key = cosignerKey(name, selectCryptoBackend().generateKeyPair('ed25519').publicKey);
  if (!key.ok) throw new Error(key.error.message);
  return key.value;
}

const requirement = { keys: [witness('witness.test/a')], quorum: 1 };

describe('checkWitnessedCheckpoint', () => {
  it('an HTML page in place of the note is the log unavailable (skipped E701, retryable)', () => {
    const checked = checkWitnessedCheckpoint('<html><body>Sign in</body></html>\n', requirement);
    expect(checked).toEqual({
      failed: expect.objectContaining({
        status: 'skipped',
        code: 'CIRCUIT_OPEN',
        retryable: true,
        kind: 'log',
      }),
    });
  });

  it('a well-formed note without the quorum still fails (E103)', () => {
    const note = 'log.test/x\n1\n' + `${Buffer.alloc(32).toString('base64')}\n\n— log.test/x AAAAAAAAAAA=\n`;
    const checked = checkWitnessedCheckpoint(note, requirement);
    expect(checked).toEqual({
      failed: expect.objectContaining({ status: 'fail', code: 'SIGNATURE_MISSING', retryable: false }),
    });
  });
});
