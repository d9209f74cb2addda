// Large request bodies take turns on the HTTP thread. Parsing, checking and rendering a 1000-line posting holds the
// thread for tens of milliseconds in one piece (until its write is handed to the writer thread); sixty arriving
// together held it for seconds, and every other tenant's request, even /healthz, waited behind them (issue 29: a
// 3.1 s worst wait beside 60 concurrent 1000-line postings, with the writer's large-write share working as meant).
// Here such a request starts its piece only when the previous one has ended and the event loop has gone round once
// since, so whatever else arrived meanwhile (another tenant's request, a write's answer) runs between two of them:
// a small request waits for at most one large piece at each of its steps, however many large ones are queued.

export class Turns {
  private readonly waiting: Array<() => void> = [];
  private running = false;

  /**
   * Resolves when it is the caller's turn. The turn is the rest of the current macrotask: what the caller does
   * synchronously after it resolves (and in the promise reactions that follow, up to its first wait for I/O).
   */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.running) {
        this.running = true;
        setImmediate(this.next);
      }
    });
  }

  /** How many wait for their turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Gives the turn to the first in line, then comes back on the next round of the event loop: an immediate set
   * during the check phase runs on the next round, after its poll phase has taken every I/O callback that is ready.
   */
  private readonly next = (): void => {
    const resolve = this.waiting.shift();
    if (!resolve) {
      this.running = false;
      return;
    }
    resolve();
    setImmediate(this.next);
  };
}
