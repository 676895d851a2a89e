// Month arithmetic for event partitions, in UTC. A month is named events_yYYYYmMM.
export interface Month {
  year: number;
  /** 1-12 */
  month: number;
}

export const monthOf = (date: Date): Month => ({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 });

export function addMonths(m: Month, n: number): Month {
  const index = m.year * 12 + (m.month - 1) + n;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

export const monthStart = (m: Month): string => `${m.year}-${String(m.month).padStart(2, "0")}-01T00:00:00Z`;

export const partitionName = (m: Month): string => `events_y${m.year}m${String(m.month).padStart(2, "0")}`;

export const monthLabel = (m: Month): string => `${m.year}-${String(m.month).padStart(2, "0")}`;

export function parsePartitionName(name: string): Month | null {
  const match = /^events_y(\d{4})m(\d{2})$/.exec(name);
  return match ? { year: Number(match[1]), month: Number(match[2]) } : null;
}

export const isBefore = (a: Month, b: Month): boolean => a.year * 12 + a.month < b.year * 12 + b.month;
