// Leases within one process: the engine has no other process to share work with (SQLite, one server per file).
import type { Leases } from '../core/ports.js';

export class LocalLeases implements Leases {
  private readonly held = new Set<string>();

  async tryHold(name: string): Promise<boolean> {
    this.held.add(name);
    return true;
  }

  holds(name: string): boolean {
    return this.held.has(name);
  }

  async release(name: string): Promise<void> {
    this.held.delete(name);
  }

  async close(): Promise<void> {
    this.held.clear();
  }
}
