// Reading V8's --trace-gc lines per isolate: collections by kind and reason, pause time, heap after the last
// one. bench/thread-breakdown.ts feeds it a service's standard output (P112, P124). A module of its own so the
// parsing is tested against what the running Node prints, not only against lines copied into a test.

/** GC pauses of one isolate, read from --trace-gc lines over the measured part of a run. */
export interface IsolateGc {
  scavenges: number;
  markCompacts: number;
  pauseMs: number;
  /** Heap after the last collection, MB. */
  lastHeapMb: number;
  /** Collections by kind and V8's reason (`Mark-Compact: external memory pressure`), P124. */
  reasons: Map<string, number>;
}

// `[pid:0xISOLATE]  1234 ms: Scavenge 5.1 (6.2) -> 4.3 (7.2) MB, pooled: 0.0 MB, 0.85 / 0.00 ms …`
const TRACE_GC =
  /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: ([A-Za-z-]+(?: [A-Za-z-]+)?).*?-> ([\d.]+) \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/;

export class GcTrace {
  readonly isolates = new Map<string, IsolateGc>();
  #pending = '';
  counting = false;

  feed(chunk: Buffer): void {
    const lines = (this.#pending + chunk.toString('latin1')).split('\n');
    this.#pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = TRACE_GC.exec(line);
      if (m === null || !this.counting) continue;
      const [, isolate = '', kind = '', heap = '0', pause = '0'] = m;
      const gc = this.isolates.get(isolate) ?? {
        scavenges: 0,
        markCompacts: 0,
        pauseMs: 0,
        lastHeapMb: 0,
        reasons: new Map<string, number>(),
      };
      // The reason follows the mutator utilisation: `… current mu = 0.98) allocation failure;`, or
      // `… current mu = 0.97) finalize incremental marking via task; GC in old space requested`.
      const reason = `${kind}: ${/current mu = [\d.]+\)\s*(.*?)[;\s]*$/.exec(line)?.[1] ?? '?'}`;
      gc.reasons.set(reason, (gc.reasons.get(reason) ?? 0) + 1);
      if (kind.startsWith('Scavenge') || kind.startsWith('Minor')) gc.scavenges += 1;
      else gc.markCompacts += 1;
      gc.pauseMs += Number(pause);
      gc.lastHeapMb = Number(heap);
      this.isolates.set(isolate, gc);
    }
  }
}
