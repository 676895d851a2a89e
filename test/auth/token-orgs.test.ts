// The organizations the Worker remembers for tokens it has seen (worker/auth/token-orgs.ts) only say
// where to look: every call still reads the token in its own organization, so one organization's
// token is never served another's work, even if what is remembered were wrong.
import { beforeEach, describe, expect, it } from "vitest";
import { rememberTokenOrg, tokenOrg } from "../../worker/auth/token-orgs";
import { hashToken } from "../../worker/http/hash";
import { seedOrganization, seedToken } from "../support/seed";
import { claim, seedEnvironment, seedRun, type Claimed } from "../support/workloads";

const ENV = "env-shared-name";
let a: { orgId: string; token: string };
let b: { orgId: string; token: string };

beforeEach(async () => {
  for (const side of ["a", "b"] as const) {
    const orgId = (await seedOrganization(`token-orgs-${side}`)).id;
    const token = (await seedToken(orgId, "engine")).token;
    await seedEnvironment(token, ENV);
    if (side === "a") a = { orgId, token };
    else b = { orgId, token };
  }
});

const claimed = async (token: string) => {
  const response = await claim(token, ENV);
  return { status: response.status, run: response.status === 200 ? ((await response.json()) as Claimed).run : null };
};

describe("remembered token organizations", () => {
  it("send each token's claims to its own organization's environment of the same name", async () => {
    const runs = { a: [await seedRun(a.orgId, ENV), await seedRun(a.orgId, ENV)], b: [await seedRun(b.orgId, ENV), await seedRun(b.orgId, ENV)] };
    expect((await claimed(a.token)).run?.id).toBe(runs.a[0]);
    expect((await claimed(b.token)).run?.id).toBe(runs.b[0]);
    expect(tokenOrg(await hashToken(a.token))).toBe(a.orgId);
    expect(tokenOrg(await hashToken(b.token))).toBe(b.orgId);
    // Remembered now: the second claims take the same short way, each still in its own organization.
    expect((await claimed(b.token)).run?.id).toBe(runs.b[1]);
    expect((await claimed(a.token)).run?.id).toBe(runs.a[1]);
  });

  it("refuse a token remembered under another organization, serve nothing of it, then find the token afresh", async () => {
    const theirs = await seedRun(a.orgId, ENV);
    const mine = await seedRun(b.orgId, ENV);
    rememberTokenOrg(await hashToken(b.token), a.orgId);
    expect(await claimed(b.token)).toEqual({ status: 401, run: null });
    expect(tokenOrg(await hashToken(b.token))).toBeUndefined();
    expect((await claimed(b.token)).run?.id).toBe(mine);
    expect((await claimed(a.token)).run?.id).toBe(theirs);
  });
});
