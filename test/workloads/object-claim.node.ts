// The environment object's claim rules, without the object (worker/workloads/object-claim.ts): a
// refusal crosses the object's RPC boundary as data with its catalog code, anything else stays an error.
import { describe, expect, it } from "vitest";
import { Refusal } from "../../worker/http/refusal";
import { refusalOf } from "../../worker/workloads/object-claim";

describe("a claim's refusal across the object's boundary", () => {
  it("is data carrying the code, the sentence and the wait", () => {
    expect(refusalOf(new Refusal("organization_suspended", "Suspended.", 60))).toEqual({
      code: "organization_suspended",
      message: "Suspended.",
      retryAfterSeconds: 60,
    });
    expect(refusalOf(new Refusal("not_found", "No environment."))).toEqual({ code: "not_found", message: "No environment.", retryAfterSeconds: null });
  });

  it("is no refusal for any other failure", () => {
    expect(refusalOf(new Error("connection lost"))).toBeNull();
  });
});
