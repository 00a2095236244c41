// The HTTP floor measured next to each single-request row of `pnpm bench` (P98): the floor servers of
// bench/http-floor.ts under the same load, held to the service's rate.
import { join } from 'node:path';
import { cpuProfArgs, stopService } from './bench-service.ts';
import { CPU_PROF_DIR, DATA_DIR, FLOOR_KINDS } from './bench-settings.ts';
import { captureAnswer, floorRow, holdMsFor, startFloor } from './http-floor.ts';
import type { Prepared } from './prepared-cases.ts';
import { type Load, type Measured, measure } from './row-measure.ts';
import type { HttpFloor } from './share-bounds.ts';

/**
 * The floor servers under the load just measured against the service: the same body, the service's own
 * answer to it, 8 connections for BENCH_DURATION_S, each answer held so they arrive at the service's
 * rate (holdMsFor). Returns the floor table's lines and each floor's whole-process CPU per request.
 */
export async function measureFloors(
  p: Prepared,
  mode: string,
  serviceUrl: string,
  load: Load,
  service: Measured,
  connections: number,
): Promise<{ lines: string[]; floors: HttpFloor[] }> {
  const answer = await captureAnswer(`${serviceUrl}${load.path}`, load);
  if (answer.status !== 200) throw new Error(`${p.name} ${mode}: the service answered ${answer.status}`);
  const serviceSide = {
    main: service.mainProcPerBundle,
    other: service.cpuPerBundle - service.mainPerBundle - service.workersPerBundle,
  };
  const lines: string[] = [];
  const floors: HttpFloor[] = [];
  for (const kind of FLOOR_KINDS) {
    const floor = await startFloor(
      kind,
      join(DATA_DIR, 'floor-answer.json'),
      answer,
      holdMsFor(connections, service.bundlesPerSecond),
      cpuProfArgs(),
    );
    try {
      const m = await measure(floor.child.pid!, floor.url, load, connections);
      if (m.failures > 0)
        throw new Error(`${p.name} ${mode}: the ${kind} floor failed ${m.failures} requests`);
      floors.push({ name: p.name, mode, kind, allMs: m.cpuPerBundle });
      lines.push(
        floorRow(
          p.name,
          mode,
          kind,
          { service: service.bundlesPerSecond, floor: m.bundlesPerSecond },
          serviceSide,
          { all: m.cpuPerBundle, main: m.mainProcPerBundle },
        ),
      );
      if (CPU_PROF_DIR) {
        // Its profile covers its whole life, warm-up included: divide by every request it answered.
        const answered = await (await fetch(`${floor.url}/requests`)).text();
        lines.push(
          `  profiled ${kind} floor: pid ${floor.child.pid}; node bench/profile-summary.ts ${CPU_PROF_DIR} 30 --pid=${floor.child.pid} --requests=${answered}`,
        );
      }
    } finally {
      await stopService(floor.child);
    }
  }
  return { lines, floors };
}
