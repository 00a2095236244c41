// The soak's memory judgement (issue 16 item 5, issue 14 item 5). RSS alone cannot tell a leak from V8
// sizing its heap to the load: a fresh process's RSS climbs for minutes to a plateau (young generation and
// old-space growth, code caches, malloc arenas), so "peak ≤ baseline + N" fails healthy services on a long
// run and catches little on a short one. What is judged instead, on the process serving each service at the
// end (the earlier ones were killed by the faults), after its own warm-up:
// - the heap floor (the least heapUsed over 30 s windows, i.e. live data after the collections in them)
//   over the second half of its life: a leak raises it, heap sizing does not (judged, like the RSS
//   below, only once the process has lived `rssPlateauAfterS`: `pnpm soak --duration 600`);
// - the RSS over the same second half: a plateau, within the same bound, once the process has lived long
//   enough to reach one (`rssPlateauAfterS`; on a 3-minute run the final processes are 1–2 min old and
//   their RSS is still sizing: reported, not judged; the heap floor decides);
// - the RSS of every process of the run under a ceiling (a runaway; issue 14 wants < 400 MB at saturation).

export interface Sample {
  /** Seconds since the load began. */
  readonly t: number;
  readonly mb: number;
}

export interface RssSample extends Sample {
  readonly pid: number;
}

export interface MemoryBounds {
  /** Allowed rise of the heap floor and of the RSS over the second half of the final process's life. */
  readonly growthMb: number;
  /** No process of the run may exceed it. */
  readonly ceilingMb: number;
  /** Seconds after a process starts before its memory is judged. */
  readonly warmupS: number;
  /** The RSS plateau is judged only over a judged life at least this long (seconds). */
  readonly rssPlateauAfterS: number;
}

export interface MemoryVerdict {
  readonly ok: boolean;
  readonly result: string;
}

const mean = (xs: readonly Sample[]) => xs.reduce((sum, s) => sum + s.mb, 0) / Math.max(1, xs.length);

/** Rise from the start to the end of `series` over [from, to]: mean of the last window minus the first. */
export function secondHalfRise(series: readonly Sample[], from: number, to: number): number | undefined {
  const mid = (from + to) / 2;
  const window = Math.max(6, (to - mid) / 4);
  const first = series.filter((s) => s.t >= mid && s.t <= mid + window);
  const last = series.filter((s) => s.t >= to - window && s.t <= to);
  if (first.length === 0 || last.length === 0) return undefined;
  return mean(last) - mean(first);
}

export function judgeMemory(
  rss: readonly RssSample[],
  heapFloor: readonly Sample[],
  bounds: MemoryBounds,
): MemoryVerdict {
  if (rss.length === 0) return { ok: false, result: 'no RSS sample' };
  const peak = Math.max(...rss.map((s) => s.mb));
  const finalPid = rss.at(-1)!.pid;
  const final = rss.filter((s) => s.pid === finalPid);
  const from = final[0]!.t + bounds.warmupS;
  const to = final.at(-1)!.t;
  const parts = [`peak RSS ${peak.toFixed(0)} MB (ceiling ${bounds.ceilingMb})`];
  let ok = peak <= bounds.ceilingMb;
  if (to - from < 2 * 12) {
    parts.push(`final process too young to judge growth (${Math.max(0, to - from).toFixed(0)} s)`);
    return { ok, result: parts.join('; ') };
  }
  const judged = final.filter((s) => s.t >= from);
  const rssRise = secondHalfRise(judged, from, to);
  const heapRise = secondHalfRise(
    heapFloor.filter((s) => s.t >= from),
    from,
    to,
  );
  const end = mean(judged.filter((s) => s.t >= to - 10));
  parts.push(`final process ${end.toFixed(0)} MB at the end`);
  const rssJudged = to - from >= bounds.rssPlateauAfterS;
  parts.push(
    `second half of its last ${(to - from).toFixed(0)} s: heap floor ${signed(heapRise)} MB, ` +
      `RSS ${signed(rssRise)} MB${rssJudged ? '' : ' (neither judged: younger than the plateau)'} (bound +${bounds.growthMb})`,
  );
  // Both rises are judged only over a life long enough to hold a plateau: on a 3-minute run the final
  // processes' second halves are a minute long and hold a fault or two (a PostgreSQL restart, Redis gone),
  // after which caches and connections fill again; their heap floors rose 12–46 MB that way in 2026-11-26
  // runs with no leak to find. The ceiling is judged on every run.
  if (rssJudged) {
    ok &&= heapRise !== undefined && heapRise <= bounds.growthMb;
    ok &&= rssRise !== undefined && rssRise <= bounds.growthMb;
  }
  return { ok, result: parts.join('; ') };
}

function signed(mb: number | undefined): string {
  if (mb === undefined) return 'n/a';
  return `${mb >= 0 ? '+' : ''}${mb.toFixed(1)}`;
}
