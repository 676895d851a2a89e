// The one-round-trip routes (claim, heartbeat) decide a token's admission twice from the same row: in
// SQL, for the work sent in that round trip, and in code, for the refusal's words. admitFound answers
// the code's refusal only when the SQL refused too, and a disagreement as the bug it is.
import { describe, expect, it } from "vitest";
import { admitFound, type Admission } from "../../worker/auth/bearer";
import { Refusal } from "../../worker/http/refusal";

const engines: Admission = { kinds: ["engine"], allowSuspended: false, requiredPlan: null };
const row = (fields: Record<string, unknown> = {}) => ({
  id: "t-1",
  org_id: "o-1",
  kind: "engine",
  scopes: [],
  person_id: null,
  slug: "acme",
  plan: "free",
  suspended: false,
  watched: false,
  admitted_token: "t-1",
  ...fields,
});
const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error instanceof Refusal ? error.code : `bug: ${(error as Error).message}`;
  }
  return "admitted";
};

describe("admitFound", () => {
  it("admits the token both admitted", () => {
    expect(admitFound("hash", [row()], engines)).toMatchObject({ tokenId: "t-1", orgId: "o-1" });
  });

  it("answers the code's refusal where the SQL refused too", () => {
    expect(codeOf(() => admitFound("hash", [], engines))).toBe("unauthenticated");
    expect(codeOf(() => admitFound("hash", [row({ kind: "cli", admitted_token: "" })], engines))).toBe("unauthenticated");
    expect(codeOf(() => admitFound("hash", [row({ suspended: true, admitted_token: "" })], engines))).toBe("organization_suspended");
    expect(codeOf(() => admitFound("hash", [row({ admitted_token: "" })], { ...engines, requiredPlan: "enterprise" }))).toBe("plan_required");
    expect(codeOf(() => admitFound("hash", [row({ suspended: true })], { ...engines, allowSuspended: true }))).toBe("admitted");
  });

  it("fails as a bug, not a refusal, when the two disagree", () => {
    expect(codeOf(() => admitFound("hash", [row({ kind: "cli" })], engines))).toMatch(/^bug: .*let work through/);
    expect(codeOf(() => admitFound("hash", [row({ admitted_token: "" })], engines))).toMatch(/^bug: .*refused what the code admits/);
  });
});
