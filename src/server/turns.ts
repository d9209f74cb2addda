// Large request bodies take turns on the HTTP thread. Parsing, checking and handing on a 1000-line posting holds the
// thread for tens of milliseconds in one piece (until its write is handed to the writer thread); sixty arriving
// together held it for seconds, and every other tenant's request, even /healthz, waited behind them (issue 29: a
// 3.1 s worst wait beside 60 concurrent 1000-line postings, with the writer's large-write share working as meant).
// Here such a request starts its piece only when the previous one has ended and the event loop has gone round once
// since, so whatever else arrived meanwhile (another tenant's request, a write's answer) runs between two of them:
// a small request waits for at most one large piece at each of its steps, however many large ones are queued.
// And at most a few are under way at once, from their turn to their answer: the others wait as the bytes they
// arrived as, not as parsed requests, which weigh some ten times more on the heap (sixty of them parsed and waiting
// for the writer, which takes large writes one at a time anyway, stalled the thread for seconds at a time).

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
