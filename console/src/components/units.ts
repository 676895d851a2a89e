// Sizes and durations as a person reads them ("204.8 kB", "1 min 45 s"), never a raw count of bytes or
// a second count with a decimal a minute long: one way on every page.

const SIZE_UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

/** `512 bytes`, `204.8 kB`, `3.1 MB`: decimal units (1 kB = 1,000 bytes), at most one decimal. */
export function bytes(count: number): string {
  let value = count;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < SIZE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return new Intl.NumberFormat("en", { style: "unit", unit: SIZE_UNITS[unit], unitDisplay: unit === 0 ? "long" : "short", maximumFractionDigits: 1 }).format(
    value,
  );
}

/** `850 ms`, `12.3 s`, `1 min 45 s`, `2 h 5 min`: the two largest units that say anything. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return joinedUnits(Math.floor(seconds / 60), "min", seconds % 60, "s");
  const minutes = Math.round(seconds / 60);
  return joinedUnits(Math.floor(minutes / 60), "h", minutes % 60, "min");
}

const joinedUnits = (large: number, largeUnit: string, small: number, smallUnit: string) =>
  small === 0 ? `${large} ${largeUnit}` : `${large} ${largeUnit} ${small} ${smallUnit}`;
