// What a verification thread reads a /verify task's request from: the parsed request the main thread sent, or
// the body's bytes (JSON or CBOR), decoded and checked here, off the event loop, then freed (P141).
import { decodeCbor } from '@proto/service-kit/cbor';
import { releaseBytes } from './owned-bytes.ts';
import { checkVerifyRequest, parseJsonBody } from './verify-request.ts';
import type { VerifyTask } from './worker.ts';

/** The task's request, read from its body when the main thread did not; a message when it is not one. */
export function requestOf(
  task: VerifyTask,
): { ok: true; request: Record<string, unknown> } | { ok: false; message: string } {
  if (task.request !== undefined) return { ok: true, request: task.request };
  if (task.body === undefined) return { ok: false, message: 'Missing signed_bundle in body' };
  try {
    return readBody(task.body, task.format, task.bodyChecked === true);
  } finally {
    // Nothing reads the body once it is decoded (the decoders return strings, no views of it): its memory goes
    // now, not at this thread's next mark-compact, which its dead bodies would otherwise bring forward (P141).
    releaseBytes(task.body);
  }
}

function readBody(
  body: Uint8Array,
  format: VerifyTask['format'],
  checked: boolean,
): { ok: true; request: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  if (format === 'cbor') {
    try {
      value = decodeCbor(body);
    } catch (error) {
      return { ok: false, message: `Request body is not valid CBOR: ${(error as Error).message}` };
    }
  } else {
    const parsed = parseJsonBody(body, { alreadyChecked: checked });
    if (!parsed.ok) return parsed;
    value = parsed.value;
  }
  if (checked) return { ok: true, request: value as Record<string, unknown> };
  return checkVerifyRequest(value);
}
