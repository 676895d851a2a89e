// The projection as a pure function: the ordering rules without the database.
import { describe, expect, it } from "vitest";
import { project, type ProjectionEvent } from "../../worker/environments/projection";

const at = Date.parse("2026-11-01T00:00:00Z");
const event = (ref: number, type: string, sequence: number | null, offsetMs = 0, payload = {}): ProjectionEvent => ({
  ref,
  type: `environment.${type}`,
  sequence,
  at: at + offsetMs,
  payload: { repository: "acme/shop", ...payload },
});

describe("project()", () => {
  it("without sequences, orders by occurredAt", () => {
    const { row, notes } = project(null, [event(0, "ready", null, 2000), event(1, "queued", null, 1000)]);
    expect(row?.state).toBe("ready");
    expect(notes.size).toBe(0);
  });

  it("breaks a tie in sequence by occurredAt", () => {
    const first = project(null, [event(0, "ready", 4, 1000)]);
    const earlier = project(first.row, [event(1, "failed", 4, 0)]);
    expect(earlier.row?.state).toBe("ready");
    expect(earlier.notes.get(1)).toMatch(/sequence 4/);
    expect(project(first.row, [event(2, "failed", 4, 2000)]).row?.state).toBe("failed");
  });

  it("lets sequence win over occurredAt", () => {
    const first = project(null, [event(0, "ready", 5, 0)]);
    const late = project(first.row, [event(1, "creating", 4, 60_000)]);
    expect(late.row?.state).toBe("ready");
  });

  it("keeps properties an event does not repeat", () => {
    const first = project(null, [event(0, "queued", 1, 0, { branch: "feature", pull_request: 3 })]);
    const second = project(first.row, [{ ...event(1, "ready", 2), payload: {} }]);
    expect(second.row).toMatchObject({ state: "ready", branch: "feature", pullRequest: 3, repository: "acme/shop" });
  });
});
