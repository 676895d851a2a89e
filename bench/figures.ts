// The pure parts of the benchmarks: percentiles, the scale's arithmetic, `bench:scale`'s arguments and
// the JSON document it prints (test/bench/scale.node.ts), what `bench:claim`'s document says of its
// timings (test/bench/claim.node.ts). Nothing here measures.

/** The value at or below which `p` percent of the values lie (nearest rank); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The middle value (the upper one of an even count), as `bench:ingest` prints its rounds. */
export const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export interface ScaleArgs {
  json: boolean;
  scale: number;
}

/** `--json` and BENCH_SCALE (a positive multiplier of every count, default 1). */
export function parseScaleArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ScaleArgs {
  const unknown = argv.filter((arg) => arg !== "--json");
  if (unknown.length > 0) throw new Error(`bench:scale takes only --json (got ${unknown.join(" ")})`);
  const scale = env.BENCH_SCALE === undefined || env.BENCH_SCALE === "" ? 1 : Number(env.BENCH_SCALE);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 10) throw new Error(`BENCH_SCALE is a number above 0 and at most 10 (got ${env.BENCH_SCALE})`);
  return { json: argv.includes("--json"), scale };
}

/** The counts of a year of data at scale 1 (issue 36), before BENCH_SCALE multiplies them. */
export const YEAR = {
  smallOrganizations: 1_000,
  events: 10_000_000,
  months: 12,
  environments: 10_000,
  engineRuns: 200_000,
  verdictsPerRun: 3,
  decisionsPerRun: 2,
  workloadRuns: 100_000,
  members: 5_000,
  tokens: 60_000,
  auditEntries: 1_000_000,
  beaconEvents: 1_000_000,
  dataExports: 50,
  billingHistory: 100,
  invitations: 2_000,
  proposals: 1_000,
  forkCommits: 1_000,
  claimBacklog: 10_000,
} as const;

export type Counts = { -readonly [K in keyof typeof YEAR]: number };

/** Every count multiplied by `scale`, rounded, at least 1 (months and per-run ratios are not scaled). */
export function scaledCounts(scale: number): Counts {
  const fixed = new Set<keyof Counts>(["months", "verdictsPerRun", "decisionsPerRun"]);
  return Object.fromEntries(
    Object.entries(YEAR).map(([key, value]) => [key, fixed.has(key as keyof Counts) ? value : Math.max(1, Math.round(value * scale))]),
  ) as Counts;
}

export interface Timing {
  p50Ms: number;
  p95Ms: number;
}

export interface Heavy {
  seconds: number;
  peakMemoryMb: number;
  longestStepMs: number;
}

/** One column of `bench:scale --json`. */
export interface Figures {
  ingestRatio: number;
  claimP99Ms: number;
  lists: Record<string, Timing>;
  auditExport: { entriesPerSecond: number; peakMemoryMb: number };
  dataExport: Heavy;
  deletion: Heavy;
}

/** What a column measured, in the raw form the run collects. */
export interface Measured {
  ingestRatios: number[];
  claimMs: number[];
  lists: Record<string, number[]>;
  auditExport: { entries: number; seconds: number; peakMemoryMb: number };
  dataExport: Heavy;
  deletion: Heavy;
}

const round = (value: number, digits: number) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

/** A column's figures: the worse ingestion mix, the p99 of every claim, p50/p95 per list. */
export function figures(measured: Measured): Figures {
  return {
    ingestRatio: round(Math.min(...measured.ingestRatios), 2)!,
    claimP99Ms: round(percentile(measured.claimMs, 99), 1)!,
    lists: Object.fromEntries(
      Object.entries(measured.lists).map(([name, ms]) => [name, { p50Ms: round(percentile(ms, 50), 1)!, p95Ms: round(percentile(ms, 95), 1)! }]),
    ),
    auditExport: {
      entriesPerSecond: Math.round(measured.auditExport.entries / measured.auditExport.seconds),
      peakMemoryMb: round(measured.auditExport.peakMemoryMb, 1)!,
    },
    dataExport: heavy(measured.dataExport),
    deletion: heavy(measured.deletion),
  };
}

const heavy = (value: Heavy): Heavy => ({
  seconds: round(value.seconds, 2)!,
  peakMemoryMb: round(value.peakMemoryMb, 1)!,
  longestStepMs: round(value.longestStepMs, 0)!,
});

/** `--json`'s document: exactly `{ "empty": F, "seeded": F }`. */
export const scaleDocument = (empty: Figures, seeded: Figures) => JSON.stringify({ empty, seeded }, null, 2);

/** One side of `bench:claim` (the service or its floor): its timings and what became of its runs. */
export interface ClaimFigures {
  seconds: number;
  claimRunMs: number[];
  claimEmptyMs: number[];
  heartbeatMs: number[];
  requested: number;
  claimed: number;
  claimedTwice: number;
  lost: number;
  failures: string[];
  /** workload_runs of the organization by state, from the database afterwards. */
  states: Array<{ state: string; count: string }>;
}

// No timings: NaN, which `round` answers as null.
const at = (values: number[], p: number) => round(percentile(values, p), 1);

/** What `bench:claim --json` says of one side: claims (all polls) and heartbeats, p50 and p99 in ms. */
export const claimSummary = (figures: ClaimFigures) => {
  const claims = [...figures.claimRunMs, ...figures.claimEmptyMs];
  return {
    claim: { p50Ms: at(claims, 50), p99Ms: at(claims, 99) },
    heartbeat: { p50Ms: at(figures.heartbeatMs, 50), p99Ms: at(figures.heartbeatMs, 99) },
  };
};

export type ClaimSummary = ReturnType<typeof claimSummary>;

// A floor of 0 gives Infinity, which `round` answers as null too.
const ratio = (service: number | null, floor: number | null) => (service === null || floor === null ? null : round(service / floor, 1));

/** The service's figures over its floor's. */
export const claimRatio = (s: ClaimSummary, f: ClaimSummary) => ({
  claimP50: ratio(s.claim.p50Ms, f.claim.p50Ms),
  claimP99: ratio(s.claim.p99Ms, f.claim.p99Ms),
  heartbeatP50: ratio(s.heartbeat.p50Ms, f.heartbeat.p50Ms),
  heartbeatP99: ratio(s.heartbeat.p99Ms, f.heartbeat.p99Ms),
});

/** Several rounds of one side as one: their timings together, their counts summed (runs by state too). */
export function pooledClaims(rounds: readonly ClaimFigures[]): ClaimFigures {
  const sum = (of: (round: ClaimFigures) => number) => rounds.reduce((total, round) => total + of(round), 0);
  const byState = new Map<string, number>();
  for (const { state, count } of rounds.flatMap((round) => round.states)) byState.set(state, (byState.get(state) ?? 0) + Number(count));
  return {
    seconds: sum((round) => round.seconds),
    claimRunMs: rounds.flatMap((round) => round.claimRunMs),
    claimEmptyMs: rounds.flatMap((round) => round.claimEmptyMs),
    heartbeatMs: rounds.flatMap((round) => round.heartbeatMs),
    requested: sum((round) => round.requested),
    claimed: sum((round) => round.claimed),
    claimedTwice: sum((round) => round.claimedTwice),
    lost: sum((round) => round.lost),
    failures: rounds.flatMap((round) => round.failures),
    states: [...byState].map(([state, count]) => ({ state, count: String(count) })),
  };
}

/** `bench:claim --json`'s document: each side's figures over all its rounds, their ratios, how many rounds, and what was claimed twice or lost on either side. */
export function claimDocument(serviceRounds: readonly ClaimFigures[], floorRounds: readonly ClaimFigures[]) {
  const [service, floor] = [pooledClaims(serviceRounds), pooledClaims(floorRounds)];
  const [s, f] = [claimSummary(service), claimSummary(floor)];
  return {
    service: s,
    floor: f,
    ratio: claimRatio(s, f),
    rounds: serviceRounds.length,
    claimedTwice: service.claimedTwice + floor.claimedTwice,
    lost: service.lost + floor.lost,
  };
}
