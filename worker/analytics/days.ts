// UTC days and ISO weeks, as the rollup stores them and the dashboard reads them.
export const DAY_MS = 86_400_000;

/** Midnight UTC of the day `at` falls on. */
export const utcDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
export const isoDay = (day: Date) => day.toISOString().slice(0, 10);
export const addDays = (day: Date, days: number) => new Date(day.getTime() + days * DAY_MS);
/** Monday of the ISO week `day` falls in, like PostgreSQL's date_trunc('week', ...). */
export const weekOf = (day: Date) => addDays(utcDay(day), -((utcDay(day).getUTCDay() + 6) % 7));
