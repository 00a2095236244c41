// A TCP connection to a service that the test writes HTTP/1.1 to byte for byte and reads back as text: for what
// no HTTP client sends or shows (an interim `100 Continue`, an `Expect` it does not know, a body sent later).
import { connect, type Socket } from 'node:net';
import { waitFor } from './wait-for.ts';

export interface RawConnection {
  /** Writes `bytes` as they are; resolves once they are handed to the kernel (before a destroy that must not drop them). */
  write(bytes: string | Buffer): Promise<void>;
  /** All the service wrote so far, read as latin1 (one character a byte). */
  received(): string;
  /** Resolves once what was received matches `pattern`, or once the service closed (then whatever came). */
  until(pattern: RegExp, ms?: number): Promise<string>;
  /** Resolves with all the service wrote once it closed the connection, or after `ms` (then `still open: …`). */
  closed(ms?: number): Promise<string>;
  destroy(): void;
}

/** Opens a connection to `url`'s host and port. */
export async function rawConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let text = '';
  let ended = false;
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    ended = true;
  });
  return {
    write: (bytes) =>
      new Promise<void>((resolve) => {
        socket.write(bytes, () => resolve());
      }),
    received: () => text,
    async until(pattern, ms = 5_000) {
      await waitFor(() => ended || pattern.test(text), ms, `an answer matching ${pattern}`).catch(
        () => undefined,
      );
      return text;
    },
    async closed(ms = 5_000) {
      await waitFor(() => ended, ms, 'the service to close the connection').catch(() => undefined);
      if (!ended) {
        socket.destroy();
        return `still open: ${text}`;
      }
      return text;
    },
    destroy: () => socket.destroy(),
  };
}
