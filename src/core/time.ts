// Instants: stored and returned as UTC ISO 8601 with milliseconds, so text order is time order; taken only in the years
// 0001 to 9999 (UTC), where that holds.
import { INSTANT_MAX, INSTANT_MIN } from './limits.js';

const isoInstant =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Days in a month of the Gregorian calendar, the year read as itself (Date.UTC reads 0 to 99 as 1900 to 1999). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const INSTANT_MIN_MS = Date.parse(INSTANT_MIN);
const INSTANT_MAX_MS = Date.parse(INSTANT_MAX);

/** Why a text is not an instant the ledger takes. */
export type InstantRefusal = 'not ISO 8601' | 'out of range';

/**
 * Reads an ISO 8601 instant (a bare date means midnight UTC; no zone means UTC) as milliseconds, or says why not: not
 * ISO 8601 (an impossible date such as Feb 30 included), or outside INSTANT_MIN to INSTANT_MAX once its offset is
 * applied. Digits past the millisecond are dropped when rounding down, and round up otherwise, so bounds stay inclusive.
 */
// Stryker disable next-line StringLiteral: equivalent; any round other than 'up' rounds down.
export function parseInstant(text: string, round: 'down' | 'up' = 'down'): number | InstantRefusal {
  const match = isoInstant.exec(text);
  if (!match) return 'not ISO 8601';
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = match;
  // Date.parse rolls impossible dates over (Feb 30 is Mar 2); refuse those.
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > daysInMonth(Number(y), Number(mo))) return 'not ISO 8601';
  const ms = fraction.padEnd(3, '0').slice(0, 3);
  const beyondMs = /[1-9]/.test(fraction.slice(3));
  const normalizedZone = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const value = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}${normalizedZone}`);
  if (Number.isNaN(value)) return 'not ISO 8601';
  // The instant itself is judged, before any rounding: 23:59:59.9995 is past the last millisecond either way.
  if (value < INSTANT_MIN_MS || value > INSTANT_MAX_MS || (value === INSTANT_MAX_MS && beyondMs)) return 'out of range';
  return round === 'up' && beyondMs ? value + 1 : value;
}

export const toIso = (ms: number): string => new Date(ms).toISOString();

/** The time now: the system's, or a test's. */
export interface Clock {
  now(): Date;
}

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
