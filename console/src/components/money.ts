// US dollars as every page shows spend, budgets and prices: cents, except an amount under a cent,
// which shows its own digits ("$0.0042", not "$0.00"), so a little spend never reads as none.

/** Spend is kept in micro-dollars: nothing finer than this is ever charged. */
const SMALLEST = 0.000001;

/** `$12.50`, `$0.00`, `$0.0042`, `$0.000001`. */
export function dollars(value: number): string {
  if (value === 0 || Math.abs(value) >= 0.01) return `$${value.toFixed(2)}`;
  if (Math.abs(value) < SMALLEST) return `< $${SMALLEST.toFixed(6)}`;
  // Two significant digits, trailing zeros dropped (0.00999 shows as $0.01, not $0.0100).
  const decimals = Math.min(6, 1 - Math.floor(Math.log10(Math.abs(value))));
  return `$${value.toFixed(decimals).replace(/0+$/, "")}`;
}
