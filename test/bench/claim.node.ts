// What `bench:claim` says of its timings (bench/figures.ts): the `--json` document's exact shape, its
// figures taken over every round's timings together, its ratios. No timing is asserted.
import { describe, expect, it } from "vitest";
import { type ClaimFigures, claimDocument, pooledClaims } from "../../bench/figures";

const side = (ms: number, extra: Partial<ClaimFigures> = {}): ClaimFigures => ({
  seconds: 10,
  claimRunMs: Array.from({ length: 10 }, () => ms),
  claimEmptyMs: Array.from({ length: 90 }, () => ms),
  heartbeatMs: Array.from({ length: 10 }, () => ms / 2),
  requested: 10,
  claimed: 10,
  claimedTwice: 0,
  lost: 0,
  failures: [],
  states: [{ state: "accepted", count: "10" }],
  ...extra,
});

describe("bench:claim --json", () => {
  it("is exactly the issue's document, with how many rounds each side ran", () => {
    const document = claimDocument([side(4)], [side(2)]);
    expect(Object.keys(document).sort()).toEqual(["claimedTwice", "floor", "lost", "ratio", "rounds", "service"]);
    expect(document.service).toEqual({ claim: { p50Ms: 4, p99Ms: 4 }, heartbeat: { p50Ms: 2, p99Ms: 2 } });
    expect(document.floor).toEqual({ claim: { p50Ms: 2, p99Ms: 2 }, heartbeat: { p50Ms: 1, p99Ms: 1 } });
    expect(document.ratio).toEqual({ claimP50: 2, claimP99: 2, heartbeatP50: 2, heartbeatP99: 2 });
    expect(document).toMatchObject({ rounds: 1, claimedTwice: 0, lost: 0 });
  });

  it("takes each figure over every round's timings together, not a round's alone", () => {
    // Two rounds of 100 claims each: a p99 over both is the 198th of 200, a slow round's.
    const document = claimDocument([side(1), side(3)], [side(1), side(1)]);
    expect(document.service.claim).toEqual({ p50Ms: 1, p99Ms: 3 });
    expect(document.ratio.claimP50).toBe(1);
    expect(document.ratio.claimP99).toBe(3);
    expect(document.rounds).toBe(2);
  });

  it("counts what was claimed twice or lost on either side, in any round", () => {
    const document = claimDocument([side(1), side(1, { claimedTwice: 1 })], [side(1, { lost: 2 }), side(1)]);
    expect(document).toMatchObject({ claimedTwice: 1, lost: 2 });
  });

  it("has no ratio where a side timed nothing", () => {
    const document = claimDocument([side(1)], [side(1, { heartbeatMs: [] })]);
    expect(document.floor.heartbeat).toEqual({ p50Ms: null, p99Ms: null });
    expect(document.ratio.heartbeatP50).toBeNull();
  });
});

describe("rounds pooled", () => {
  it("sums the counts and the runs by state", () => {
    const pooled = pooledClaims([
      side(1, {
        states: [
          { state: "accepted", count: "9" },
          { state: "requested", count: "1" },
        ],
        failures: ["claim 500"],
      }),
      side(1, { states: [{ state: "accepted", count: "10" }] }),
    ]);
    expect(pooled).toMatchObject({ seconds: 20, requested: 20, claimed: 20, failures: ["claim 500"] });
    expect(pooled.claimRunMs).toHaveLength(20);
    expect(pooled.states).toEqual([
      { state: "accepted", count: "19" },
      { state: "requested", count: "1" },
    ]);
  });
});
