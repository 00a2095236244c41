// A verification thread frees a task's body once it has read the request from it (P141), and only a body that is
// the sole view of its memory.
import { buildSignedBundle } from '@proto/core';
import { encodeCbor } from '@proto/service-kit/cbor';
import { describe, expect, it } from 'vitest';
import { requestOf } from './task-request.ts';

const signedBundle = buildSignedBundle({ tier: 'routine', entries: 2 }).signed_bundle;
const jsonBody = (): Uint8Array => new Uint8Array(Buffer.from(JSON.stringify({ signed_bundle: signedBundle })));

describe('requestOf', () => {
  it('reads a JSON body and then frees its memory', () => {
    const body = jsonBody();
    const read = requestOf({ body, format: 'json' } as Parameters<typeof requestOf>[0]);
    expect(read.ok).toBe(true);
    if (read.ok) expect(read.request['signed_bundle']).toEqual(signedBundle);
    expect(body.buffer.byteLength).toBe(0);
    expect(body.byteLength).toBe(0);
  });

  it('reads a CBOR body and then frees its memory; the request keeps no view of it', () => {
    const encoded = encodeCbor({ signed_bundle: signedBundle });
    const body = new Uint8Array(encoded.byteLength);
    body.set(encoded);
    const read = requestOf({ body, format: 'cbor' } as Parameters<typeof requestOf>[0]);
    expect(body.buffer.byteLength).toBe(0);
    expect(read.ok).toBe(true);
    if (read.ok) expect(JSON.parse(JSON.stringify(read.request))).toEqual(read.request);
  });

  it('frees a body it refuses too', () => {
    const body = new Uint8Array(Buffer.from('{"signed_bundle": '));
    const read = requestOf({ body, format: 'json' } as Parameters<typeof requestOf>[0]);
    expect(read).toEqual({ ok: false, message: 'Invalid JSON body' });
    expect(body.buffer.byteLength).toBe(0);
  });

  it('leaves a view of shared memory alone (a pooled Buffer, part of a larger buffer)', () => {
    const whole = Buffer.from(`${JSON.stringify({ signed_bundle: signedBundle })}  `);
    const view = whole.subarray(0, whole.length - 2);
    const read = requestOf({ body: view, format: 'json' } as Parameters<typeof requestOf>[0]);
    expect(read.ok).toBe(true);
    expect(view.byteLength).toBe(whole.length - 2);
    expect(whole.toString('utf8', whole.length - 2)).toBe('  ');
  });
});
