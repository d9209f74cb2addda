// Leases between the processes on one SQLite file: a lock file per kind of work beside the database, held until its
// process closes or dies (the system releases it then); the others stand by and take over on their next try.
import type { Leases } from '../../core/ports.js';
import { FileLock } from './fileLock.js';

/** The kind of work a lease names: `webhooks:<tenant>` is the webhooks of every tenant; `watch:TRON` is one chain. */
const kindOf = (name: string): string => (name.startsWith('webhooks:') ? 'webhooks' : name.replace(/[^A-Za-z0-9]+/g, '-'));

export class FileLeases implements Leases {
  private readonly held = new Map<string, FileLock>();

  constructor(private readonly dbPath: string) {}

  async tryHold(name: string): Promise<boolean> {
    const kind = kindOf(name);
    if (this.held.has(kind)) return true;
    const lock = FileLock.tryTake(`${this.dbPath}-${kind}.lock`);
    if (lock) this.held.set(kind, lock);
    return lock !== null;
  }

  holds(name: string): boolean {
    return this.held.has(kindOf(name));
  }

  /** A kind is kept until close: handing one tenant over would hand over every tenant. */
  async release(): Promise<void> {}

  async close(): Promise<void> {
    for (const lock of this.held.values()) lock.release();
    this.held.clear();
  }
}
