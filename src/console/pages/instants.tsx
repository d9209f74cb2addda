// Instants typed into a form: a date and time field read as UTC, as every time in the console is.
export const UTC_HINT_ID = 'utc-hint';

/** A datetime-local field's value read as UTC (`2026-11-27T10:30` → `2026-11-27T10:30:00Z`); '' when empty. */
export function instantOfLocal(value: string): string {
  if (value === '') return '';
  return `${value}${/T\d\d:\d\d$/.test(value) ? ':00' : ''}Z`;
}

export const UtcHint = () => (
  <p id={UTC_HINT_ID} class="hint">
    Times are UTC.
  </p>
);
