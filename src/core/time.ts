// Instants: stored and returned as UTC ISO 8601 with milliseconds, so text order is time order.
import type { Clock } from './ports.js';

const isoInstant =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses an ISO 8601 instant (a bare date means midnight UTC; no zone means UTC) to milliseconds.
 * Digits past the millisecond are dropped when rounding down, and round up otherwise, so bounds stay inclusive.
 */
// Stryker disable next-line StringLiteral: equivalent; any round other than 'up' rounds down.
export function parseInstant(text: string, round: 'down' | 'up' = 'down'): number | null {
  const match = isoInstant.exec(text);
  if (!match) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = match;
  const ms = fraction.padEnd(3, '0').slice(0, 3);
  const beyondMs = /[1-9]/.test(fraction.slice(3));
  const normalizedZone = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const value = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}${normalizedZone}`);
  if (Number.isNaN(value)) return null;
  // Date.parse rolls over impossible dates (Feb 30); refuse those.
  const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return null;
  return round === 'up' && beyondMs ? value + 1 : value;
}

export const toIso = (ms: number): string => new Date(ms).toISOString();

export const systemClock: Clock = { now: () => new Date() };

/** Commit times that never go backwards, even when the wall clock does. */
export class CommitClock {
  private lastMs: number;

  constructor(
    private readonly clock: Clock,
    lastCommitted: string | null,
  ) {
    this.lastMs = lastCommitted ? Date.parse(lastCommitted) : Number.NEGATIVE_INFINITY;
  }

  next(): string {
    this.lastMs = Math.max(this.clock.now().getTime(), this.lastMs);
    return toIso(this.lastMs);
  }

  /** Another writer of the database committed at this time: no later commit here may be earlier. */
  advanceTo(committed: string | null): void {
    if (committed !== null) this.lastMs = Math.max(this.lastMs, Date.parse(committed));
  }
}
