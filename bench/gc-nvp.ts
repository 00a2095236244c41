// Reading V8's --trace-gc-nvp lines (one `name=value` line per collection) by thread: what each isolate
// allocated between its collections, how many collections of each kind it ran, its pauses, and the time V8's
// helper threads spent on its behalf (the `background.*` fields). Load does not bend the byte counts, so two
// checkouts' services can be told apart by them on a shared machine where CPU times move (P476). A module of
// its own so the parsing is tested against what the running Node prints.

/** One thread's collections over the counted part of a run. */
export interface ThreadGcNvp {
  /** Collections by V8's kind: `s` scavenge, `mc` mark-compact, `ms`/`mmc` minor mark-sweep. */
  readonly kinds: Map<string, number>;
  /** Bytes allocated on the V8 heap (sum of each collection's `allocated`: the bytes since the previous one). */
  allocatedBytes: number;
  /** Bytes promoted to the old generation by the minor collections. */
  promotedBytes: number;
  /** Pause on the thread itself, ms. */
  pauseMs: number;
  /** Time on V8's helper threads for this isolate's collections (every `background.*` field), ms. */
  backgroundMs: number;
  /** Live objects after the last collection, bytes. */
  lastObjectBytes: number;
}

// `[pid:0xISOLATE:THREAD]  1234 ms: pause=0.9 mutator=18.5 gc=s … allocated=4968136 promoted=0 …`: THREAD is the
// worker_threads id, 0 for the main thread.
const NVP_LINE = /^\[\d+:0x[0-9a-f]+:(\d+)\]\s+\d+ ms: (pause=.*)$/;

export class GcNvpTrace {
  /** By worker_threads thread id (0: the main thread). */
  readonly threads = new Map<number, ThreadGcNvp>();
  #pending = '';
  counting = false;

  feed(chunk: Buffer): void {
    const lines = (this.#pending + chunk.toString('latin1')).split('\n');
    this.#pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = NVP_LINE.exec(line);
      if (m === null || !this.counting) continue;
      const thread = Number(m[1]);
      const gc = this.threads.get(thread) ?? {
        kinds: new Map<string, number>(),
        allocatedBytes: 0,
        promotedBytes: 0,
        pauseMs: 0,
        backgroundMs: 0,
        lastObjectBytes: 0,
      };
      for (const pair of (m[2] ?? '').split(' ')) {
        const eq = pair.indexOf('=');
        if (eq < 0) continue;
        const name = pair.slice(0, eq);
        const value = pair.slice(eq + 1);
        if (name === 'gc') gc.kinds.set(value, (gc.kinds.get(value) ?? 0) + 1);
        else if (name === 'allocated') gc.allocatedBytes += Number(value);
        else if (name === 'promoted') gc.promotedBytes += Number(value);
        else if (name === 'pause') gc.pauseMs += Number(value);
        else if (name === 'end_object_size') gc.lastObjectBytes = Number(value);
        else if (name.startsWith('background.')) gc.backgroundMs += Number(value) || 0;
      }
      this.threads.set(thread, gc);
    }
  }
}
