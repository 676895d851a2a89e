// The first-sign-in rule and role sync as a pure function.
import { describe, expect, it } from "vitest";
import { decideRole } from "../../worker/members/role-rules";

describe("decideRole", () => {
  it("makes the first person into an empty organization its owner when the code host confirms they administer it", () => {
    expect(decideRole({ existing: null, organizationHasMembers: false, codehostRole: "admin" })).toEqual({
      change: true,
      role: "owner",
      roleSource: "bootstrap",
      bootstrapped: true,
    });
  });

  it("makes a first sign-in a member when the code host says member or will not say", () => {
    for (const codehostRole of ["member", null] as const) {
      expect(decideRole({ existing: null, organizationHasMembers: false, codehostRole })).toMatchObject({ role: "member", bootstrapped: false });
      expect(decideRole({ existing: null, organizationHasMembers: true, codehostRole })).toMatchObject({ role: "member" });
    }
  });

  it("syncs code-host owners to admin and everyone else to member", () => {
    expect(decideRole({ existing: { role: "member", roleSource: "sync" }, organizationHasMembers: true, codehostRole: "admin" })).toMatchObject({
      role: "admin",
    });
    expect(decideRole({ existing: { role: "admin", roleSource: "sync" }, organizationHasMembers: true, codehostRole: "member" })).toMatchObject({
      role: "member",
    });
  });

  it("keeps an existing member's role when the code host will not say", () => {
    expect(decideRole({ existing: { role: "admin", roleSource: "sync" }, organizationHasMembers: true, codehostRole: null })).toEqual({ change: false });
  });

  it("never overwrites an owner, manual or bootstrapped, nor a manually set role", () => {
    expect(decideRole({ existing: { role: "owner", roleSource: "manual" }, organizationHasMembers: true, codehostRole: "member" })).toEqual({ change: false });
    expect(decideRole({ existing: { role: "owner", roleSource: "bootstrap" }, organizationHasMembers: true, codehostRole: "admin" })).toEqual({
      change: false,
    });
    expect(decideRole({ existing: { role: "viewer", roleSource: "manual" }, organizationHasMembers: true, codehostRole: "admin" })).toEqual({ change: false });
  });
});
