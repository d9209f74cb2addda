// Large request bodies take turns on the HTTP thread, so that a burst of them cannot hold every other request (even
// /healthz) behind them; docs/benchmarks.md has what it cost before (issue 29).

// A large request starts its piece (parse, check, hand to the writer) only when the previous one has ended and the
// event loop has gone round once since, so a small request waits for at most one large piece at each of its steps. At
// most `inFlightMax` are under way at once: the others wait as the bytes they arrived as, far lighter on the heap
// than parsed requests (and the writer takes large writes one at a time anyway).
export class Turns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;
  private running = 0;

  /** `inFlightMax`: how many may be under way at once, from their turn to their answer. */
  constructor(private readonly inFlightMax: number) {}

  /**
   * Runs `work` in its turn: its synchronous start (up to its first wait for I/O) is the turn, and it counts as under
   * way until it settles.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
    try {
      return await work();
    } finally {
      this.running--;
      this.schedule();
    }
  }

  /** How many wait for their turn. */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.running >= this.inFlightMax) return;
    this.scheduled = true;
    setImmediate(this.next);
  }

  /**
   * Gives the turn to the first in line, then comes back on the next round of the event loop: an immediate set during
   * the check phase runs on the next round, after its poll phase has taken every I/O callback that is ready.
   */
  private readonly next = (): void => {
    this.scheduled = false;
    const resolve = this.waiting.shift();
    if (!resolve) return;
    this.running++;
    resolve();
    this.schedule();
  };
}
