// Type declarations for the subset of autocannon's API the benchmark uses (the package ships none).
// bench/run.ts only; see autocannon's README for the full option list.
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    pipelining?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    /** Requests sent in turn on each connection; setupRequest may rewrite each one (bench/memory.ts). */
    requests?: Array<{
      setupRequest?: (request: { body?: string | Buffer }) => { body?: string | Buffer };
    }>;
  }
  interface Stats {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }
  export interface Result {
    requests: Stats & { total: number; sent: number };
    latency: Stats;
    throughput: Stats;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    duration: number;
  }
  interface Running extends Promise<Result> {
    stop(): void;
    /** Each answer as it arrives (autocannon's tracker events). */
    on(event: 'response', listener: () => void): this;
  }
  function autocannon(options: Options): Running;
  export default autocannon;
}
