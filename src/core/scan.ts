// A filtered list reads a bounded number of index rows a page (SCAN_ROWS_MAX): where its scan stopped short, the
// store says so with a ScanStop, and the page ends there with a cursor that continues the scan below it.

/** The last sequence a filtered list's scan read before it reached its bound: the next page starts below it. */
export class ScanStop {
  constructor(readonly seq: number) {}
}
