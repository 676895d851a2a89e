// The console's one way of showing sizes and durations.
import { describe, expect, it } from "vitest";
import { bytes, duration } from "../../console/src/components/units";

describe("bytes", () => {
  it("says a size in the largest decimal unit under a thousand, with at most one decimal", () => {
    expect([0, 1, 999, 2048, 204800, 3_100_000, 5_000_000_000].map(bytes)).toEqual(["0 bytes", "1 byte", "999 bytes", "2 kB", "204.8 kB", "3.1 MB", "5 GB"]);
  });
});

describe("duration", () => {
  it("says milliseconds under a second, seconds with a decimal under a minute, then two units", () => {
    expect([0, 850, 1000, 12_340, 59_900, 60_000, 105_000, 3_599_000, 3_600_000, 7_500_000].map(duration)).toEqual([
      "0 ms",
      "850 ms",
      "1 s",
      "12.3 s",
      "59.9 s",
      "1 min",
      "1 min 45 s",
      "59 min 59 s",
      "1 h",
      "2 h 5 min",
    ]);
  });
});
