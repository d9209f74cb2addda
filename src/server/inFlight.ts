// Handlers still running. A client that leaves does not end its handler (a batch may still be reading), so the
// server closes the database only once they have finished, within the drain time.
export class InFlightRequests {
  private count = 0;
  private waiting: Array<() => void> = [];

  /** Counts `work` as running until it settles: at once when it answers at once (it never throws: it answers errors). */
  track<T>(work: () => T | Promise<T>): T | Promise<T> {
    this.count++;
    let result: T | Promise<T>;
    try {
      result = work();
    } catch (error) {
      this.done();
      throw error;
    }
    if (!(result instanceof Promise)) {
      this.done();
      return result;
    }
    return result.finally(this.done);
  }

  private readonly done = (): void => {
    if (--this.count === 0) for (const wake of this.waiting.splice(0)) wake();
  };

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
