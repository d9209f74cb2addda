// Handlers still running. A client that leaves does not end its handler (a batch may still be reading), so the
// server closes the database only once they have finished, within the drain time.
export class InFlightRequests {
  private count = 0;
  private waiting: Array<() => void> = [];

  async track<T>(work: () => Promise<T>): Promise<T> {
    this.count++;
    try {
      return await work();
    } finally {
      if (--this.count === 0) for (const wake of this.waiting.splice(0)) wake();
    }
  }

  /** Handlers running now. */
  get size(): number {
    return this.count;
  }

  /** Resolves once no handler runs, or after `ms` at the latest. */
  idle(ms: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiting.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
