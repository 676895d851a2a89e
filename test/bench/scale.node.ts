// The pure parts of `bench:scale` (bench/figures.ts): its arguments, the scale's arithmetic, the
// percentiles and the `--json` document's exact shape. No timing is asserted.
import { describe, expect, it } from "vitest";
import { type Measured, figures, parseScaleArgs, percentile, scaledCounts, scaleDocument, YEAR } from "../../bench/figures";

describe("bench:scale arguments", () => {
  it("reads --json and BENCH_SCALE, 1 by default", () => {
    expect(parseScaleArgs([], {})).toEqual({ json: false, scale: 1 });
    expect(parseScaleArgs(["--json"], { BENCH_SCALE: "0.01" })).toEqual({ json: true, scale: 0.01 });
  });

  it("refuses anything else", () => {
    expect(() => parseScaleArgs(["--jsn"], {})).toThrow(/only --json/);
    for (const scale of ["0", "-1", "lots", "11"]) expect(() => parseScaleArgs([], { BENCH_SCALE: scale })).toThrow(/BENCH_SCALE/);
  });
});

describe("scaled counts", () => {
  it("multiplies every count but the months and the per-run ratios, at least 1", () => {
    const counts = scaledCounts(0.01);
    expect(counts.events).toBe(100_000);
    expect(counts.auditEntries).toBe(10_000);
    expect(counts.smallOrganizations).toBe(10);
    expect(counts.months).toBe(12);
    expect(counts.verdictsPerRun).toBe(YEAR.verdictsPerRun);
    expect(scaledCounts(0.0001).dataExports).toBe(1);
    expect(scaledCounts(1)).toEqual(YEAR);
  });
});

describe("percentile", () => {
  it("takes the nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("the --json document", () => {
  const measured: Measured = {
    ingestRatios: [0.61, 0.54],
    claimMs: [10, 12, 30],
    lists: { "environments.list": [5, 6, 7, 80], "audit.list:deep": [] },
    auditExport: { entries: 1_000_000, seconds: 16, peakMemoryMb: 12.345 },
    dataExport: { seconds: 61.234, peakMemoryMb: 40.01, longestStepMs: 812.4 },
    deletion: { seconds: 90, peakMemoryMb: 20, longestStepMs: 50_000 },
  };

  it("is exactly { empty, seeded }, each with the figures the issue names", () => {
    const document = JSON.parse(scaleDocument(figures(measured), figures(measured)));
    expect(Object.keys(document)).toEqual(["empty", "seeded"]);
    expect(document.seeded).toEqual({
      ingestRatio: 0.54,
      claimP99Ms: 30,
      lists: { "environments.list": { p50Ms: 6, p95Ms: 80 }, "audit.list:deep": { p50Ms: null, p95Ms: null } },
      auditExport: { entriesPerSecond: 62_500, peakMemoryMb: 12.3 },
      dataExport: { seconds: 61.23, peakMemoryMb: 40, longestStepMs: 812 },
      deletion: { seconds: 90, peakMemoryMb: 20, longestStepMs: 50_000 },
    });
  });
});
