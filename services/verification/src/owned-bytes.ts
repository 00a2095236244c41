// Bytes that are the only view of their memory, and freeing them at once (P134 on the main isolate, P141 in the
// verification threads): V8 counts an isolate's ArrayBuffer memory allocated since its last mark-compact against
// the old generation's limit and keeps a dead buffer until a collection finds it; freed as soon as it is read,
// a body never adds up. No imports: the verification threads load this module too.

/**
 * True when `bytes` is the only view of its memory: it can be moved to a worker or freed without touching
 * another view (a small Buffer is a slice of Node's shared pool).
 */
export function ownsItsMemory(bytes: Uint8Array): boolean {
  const buffer = bytes.buffer;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
}

/** ES2024's `ArrayBuffer.prototype.transfer` (Node 20+), not in the ES2023 lib the project compiles against. */
type Transferable = ArrayBuffer & { transfer(newLength: number): ArrayBuffer };

/**
 * Frees `bytes`' memory now, not at its isolate's next mark-compact: a transfer to a zero-length buffer
 * detaches it, and V8 takes its bytes off the external memory it counts at once (P134). Only for bytes that
 * nothing else will read; a view of shared memory is left alone.
 */
export function releaseBytes(bytes: Uint8Array): void {
  if (ownsItsMemory(bytes) && bytes.byteLength > 0) (bytes.buffer as Transferable).transfer(0);
}
