// How the console shows a state, outcome or verdict: a word a person reads and a tone, and what needs a person first.
import { describe, expect, it } from "vitest";
import { byUrgency, statusOf } from "../../console/src/components/status";
import { ENVIRONMENT_STATES, RUN_OUTCOMES, VERDICTS, WORKLOAD_RUN_STATES } from "../../db/enums";

describe("statusOf", () => {
  it("says words, never an enum, and marks what is broken as danger", () => {
    expect(statusOf("torn_down")).toEqual({ label: "Torn down", tone: "quiet" });
    expect(statusOf("failed")).toEqual({ label: "Failed", tone: "danger" });
    expect(statusOf("ready")).toEqual({ label: "Ready", tone: "ok" });
    expect(statusOf("fail")).toEqual({ label: "Failed", tone: "danger" });
    expect(statusOf("warn")).toEqual({ label: "Warning", tone: "warn" });
    expect(statusOf("abandoned").tone).toBe("danger");
  });

  it("knows every state, outcome and verdict the service records, and reads a newer engine's as itself", () => {
    for (const value of [...ENVIRONMENT_STATES, ...RUN_OUTCOMES, ...VERDICTS, ...WORKLOAD_RUN_STATES]) expect(statusOf(value).label).not.toContain("_");
    expect(statusOf("hibernating_now")).toEqual({ label: "Hibernating now", tone: "quiet" });
  });
});

describe("byUrgency", () => {
  it("puts what is broken first, then what is under way, then what is good, keeping each tone's order", () => {
    const verdicts = ["pass:a", "skip:b", "fail:c", "warn:d", "pass:e", "fail:f"];
    expect(byUrgency(verdicts, (v) => v.split(":")[0]!)).toEqual(["fail:c", "fail:f", "warn:d", "pass:a", "pass:e", "skip:b"]);
  });
});
