// SIGUSR2 writes a Node diagnostic report (every thread's stacks, heap, libuv handles, resource usage) and the
// service keeps serving: Node's own convention for the signal (--report-signal), where close-with-grace
// would drain and stop the process. The environment is left out: credentials live there (issue 12 item 4);
// network interfaces too, whose look-up can stall a loaded host.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export interface DiagnosticReportEvents {
  readonly written: (file: string) => void;
  readonly failed: (error: Error) => void;
}

/** Installs the SIGUSR2 handler; the returned function removes it. */
export function installDiagnosticReport(directory: string, events: DiagnosticReportEvents): () => void {
  const onSignal = (): void => {
    try {
      // excludeNetwork (Node 22.4) is not in @types/node yet.
      const report: NodeJS.ProcessReport & { excludeNetwork?: boolean } = process.report;
      report.directory = directory;
      report.excludeEnv = true;
      report.excludeNetwork = true;
      const file = resolve(directory, report.writeReport());
      // Node returns the name it meant to write even when the directory refused it.
      if (existsSync(file)) events.written(file);
      else events.failed(new Error(`diagnostic report not written to ${directory}`));
    } catch (error) {
      events.failed(error as Error);
    }
  };
  process.on('SIGUSR2', onSignal);
  return () => {
    process.removeListener('SIGUSR2', onSignal);
  };
}
