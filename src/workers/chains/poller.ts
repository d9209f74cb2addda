// What every chain watcher shares: scan, wait, scan again; on a failure back off and keep the checkpoint (a scan
// moves it only in the write that records). One process watches a chain at a time (its lease); the others take over.
import type { Logger } from '../../core/ports.js';
import type { Leases } from '../../core/ports.js';
import { CHAIN_BACKOFF_MAX_MS, CHAIN_POLL_MS } from '../../core/limits.js';

/** The wait before the next scan: the poll interval after a success, else 2 s doubling per failure in a row, at most 30 s. */
export const nextScanDelayMs = (failures: number, pollMs: number): number =>
  failures === 0 ? pollMs : Math.min(CHAIN_BACKOFF_MAX_MS, 1000 * 2 ** failures);

export abstract class ChainPoller {
  protected stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private failures = 0;
  /** Whether this process watched the chain at its last poll (null before the first). */
  private watching: boolean | null = null;

  protected constructor(
    private readonly name: string,
    protected readonly log: Logger,
    private readonly pollMs: number = CHAIN_POLL_MS,
  ) {}

  /** Reads from the checkpoint as far as is final, recording as it goes. */
  protected abstract scan(): Promise<void>;

  /** Polls until closed; scans only while this process holds the chain's lease. */
  start(leases: Leases): void {
    const lease = `watch:${this.name}`;
    const tick = () => {
      if (this.stopped) return;
      this.running = leases
        .tryHold(lease)
        .then((held) => {
          this.noteWatching(held);
          return held ? this.scan() : undefined;
        })
        .then(() => {
          this.failures = 0;
        })
        .catch((error: unknown) => {
          this.failures++;
          this.log(`${this.name} watcher: ${error instanceof Error ? error.message.split('\n')[0] : String(error)} (retrying; the checkpoint is kept)`);
        })
        .finally(() => {
          this.running = null;
          const delay = nextScanDelayMs(this.failures, this.pollMs);
          if (!this.stopped) this.timer = setTimeout(tick, delay);
        });
    };
    tick();
  }

  private noteWatching(held: boolean): void {
    if (held === this.watching) return;
    if (held && this.watching === false) this.log(`${this.name} watcher: this process watches ${this.name} now (the process that did stopped)`);
    if (!held) this.log(`${this.name} watcher: standing by: another process watches ${this.name}`);
    this.watching = held;
  }

  /** Stops; resolves once a scan under way has recorded what it read. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
