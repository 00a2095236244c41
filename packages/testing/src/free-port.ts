// A loopback TCP port nothing listens on at this moment: for a process that must be told its port before it
// starts (a bench's or the soak's child, a dependency such as Redis), or a peer that is down until started.
// A server of our own should listen on port 0 instead (listen.ts): between this check and the child's
// listen another process may take the port.
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
