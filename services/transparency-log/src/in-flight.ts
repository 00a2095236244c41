// Counts route handlers still running, so that shutdown closes the store only after the last one ends,
// even one whose client has gone (Fastify stops waiting for a request once its connection closes). docs/architecture.md §3.
export class InFlight {
  #count = 0;
  #waiters: Array<() => void> = [];

  get count(): number {
    return this.#count;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    this.#count++;
    try {
      return await work();
    } finally {
      this.#count--;
      if (this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
    }
  }

  /** Resolves when no handler runs. */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
