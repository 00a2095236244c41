// A hostile upstream's oversized answer, for the tests that put a local server in front of a real one (P154–P156):
// padding the client has to read past before the true answer, written with back-pressure so the test server itself
// never buffers it.

/** The part of node:http's ServerResponse a huge answer needs. */
export interface HugeAnswerTarget {
  write(chunk: Buffer): boolean;
  end(tail: string): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
}

const PADDING = Buffer.alloc(64 * 1024, 0x20);

/**
 * Writes `bytes` of spaces then `tail`. `onCutShort` is called when the client closed the answer before its end,
 * as a client that bounds what it reads does.
 */
export async function writeHugeAnswer(
  res: HugeAnswerTarget,
  bytes: number,
  tail: string,
  onCutShort: () => void = () => undefined,
): Promise<void> {
  res.on('close', () => {
    if (!res.writableFinished) onCutShort();
  });
  for (let sent = 0; sent < bytes && !res.destroyed; sent += PADDING.length) {
    if (!res.write(PADDING)) {
      // Whichever comes first removes the other: a 64 MiB answer waits a thousand times.
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    }
  }
  if (!res.destroyed) res.end(tail);
}
