// Progress lines for waits a user would otherwise sit through in silence (fetches, chain and log checks).
// Only on a terminal and only on stderr: scripts and --json output stay clean. Issue 13 item 7.
import type { CliIo } from './io.ts';

export function progress(io: CliIo, message: string): void {
  if (io.stderrIsTerminal === true) io.stderr(`… ${message}\n`);
}
