// One verifying thread of the floor verifier's `threads` arrangement (bench/floor-verifier-server.ts, P132):
// a body's bytes arrive transferred, the verdict goes back; nothing else crosses.
import { parentPort } from 'node:worker_threads';
import { floorVerify } from './floor-verifier-work.ts';

if (parentPort === null) throw new Error('floor-verifier-thread.ts runs as a worker thread');
const port = parentPort;
port.on('message', ({ id, bytes }: { id: number; bytes: ArrayBuffer }) => {
  port.postMessage({ id, verdict: floorVerify(new Uint8Array(bytes)) });
});
