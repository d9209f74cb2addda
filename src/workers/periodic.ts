// Work that runs beside the server at start and then every interval, one run at a time: a run still going when the
// next is due is not doubled, a failed run is logged and tried again next time, and closing waits for the run under way.
export class Periodic {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    intervalMs: number,
    private readonly work: (stopped: () => boolean) => Promise<void>,
    private readonly failed: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => this.run(), intervalMs);
    this.timer.unref();
    this.run();
  }

  private run(): void {
    if (this.running) return;
    this.running = this.work(() => this.stopped)
      .catch(this.failed)
      .finally(() => {
        this.running = null;
      });
  }

  /** Stops; resolves once a run under way has finished (its writes committed). */
  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
