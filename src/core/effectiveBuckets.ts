// The calendar slots of the effective-basis balance (issue 44; docs/design.md, "Effective dates"): a back-dated
// entry's signed amount is added to the buckets of the year, the month, the day, the hour and the ten minutes of its
// effective instant (UTC), and the balance at T adds the buckets before T's in each (the years before its year, the
// months of its year before its month, …) and the back-dated entries of its ten minutes up to T. Slots are text that
// sorts as time does, each level under a letter of its own.

/** The slots an instant's entry is summed into: `Y2026`, `M2026-06`, `D2026-06-30`, `H2026-06-30T12`, `X2026-06-30T12:3`. */
export function slotsOf(iso: string): string[] {
  return [`Y${iso.slice(0, 4)}`, `M${iso.slice(0, 7)}`, `D${iso.slice(0, 10)}`, `H${iso.slice(0, 13)}`, `X${iso.slice(0, 15)}`];
}

/** A half-open range of slots, [from, to). */
export interface SlotRange {
  from: string;
  to: string;
}

/**
 * What the balance at `iso` sums: a range of slots per level (every year before its year, its year's months before
 * its month, its month's days before its day, its day's hours before its hour, its hour's ten minutes before its
 * own), then the entries effective from the start of its ten minutes up to it.
 */
export function rangesBefore(iso: string): { slots: SlotRange[]; scanFrom: string } {
  const [year, month, day, hour, tenMinutes] = slotsOf(iso) as [string, string, string, string, string];
  return {
    slots: [
      { from: 'Y', to: year },
      { from: `M${iso.slice(0, 4)}-`, to: month },
      { from: `D${iso.slice(0, 7)}-`, to: day },
      { from: `H${iso.slice(0, 10)}T`, to: hour },
      { from: `X${iso.slice(0, 13)}:`, to: tenMinutes },
    ],
    scanFrom: `${iso.slice(0, 15)}0:00.000Z`,
  };
}
