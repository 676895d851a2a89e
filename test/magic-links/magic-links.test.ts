import { beforeEach, describe, expect, inject, it } from "vitest";
import { inTenant } from "../../db/transaction";
import { createInvitation } from "../../worker/invitations/create";
import { callWith } from "../support/http";
import { appPool, seedOrganization } from "../support/seed";
import { asRole } from "../support/sql";

const MAIL = () => ({
  SVC_MAIL_API_KEY: "mail-key-for-tests",
  SVC_MAIL_FROM: "Control Plane <signin@example.com>",
  SVC_PUBLIC_URL: "https://cp.example.com",
  SVC_MAIL_BASE_URL: inject("mailBase"),
  SVC_PRODUCT_NAME: "Acme Cloud",
});

let orgId: string;
let email: string;

beforeEach(async () => {
  orgId = (await seedOrganization("magic")).id;
  email = `invitee-${crypto.randomUUID().slice(0, 8)}@example.com`;
});

const address = () => `192.0.2.${Math.floor(Math.random() * 250)}`;

async function invite(role: "member" | "viewer" = "viewer") {
  const pool = appPool();
  try {
    await inTenant(pool.connect, orgId, (tx) => createInvitation(tx, orgId, { email, role, invitedBy: null }));
  } finally {
    await pool.end();
  }
}

const ask = (to: string, overrides = MAIL()) =>
  callWith(overrides, "/auth/magic-link", { method: "POST", json: { email: to }, headers: { "x-forwarded-for": address() } });

async function mailedLink(to: string): Promise<string | null> {
  const mails = (await (await fetch(`${inject("mailBase")}/_fake/emails?to=${encodeURIComponent(to)}`)).json()) as Array<{ subject: string; text: string; authorization: string }>;
  const last = mails[mails.length - 1];
  if (!last) return null;
  expect(last.subject).toBe("Sign in to Acme Cloud");
  expect(last.authorization).toBe("Bearer mail-key-for-tests");
  return /https:\/\/cp\.example\.com(\/auth\/magic-link\/callback\?token=\S+)/.exec(last.text)![1]!;
}

const follow = (link: string) => callWith(MAIL(), link, { headers: { "x-forwarded-for": address() }, redirect: "manual" });

describe("magic-link sign-in", () => {
  it("is not served unless mail is configured", async () => {
    expect((await ask(email, {} as ReturnType<typeof MAIL>)).status).toBe(404);
  });

  it("mails an invited address a link that signs in once and joins the organization", async () => {
    await invite("viewer");
    expect((await ask(email)).status).toBe(202);
    const link = await mailedLink(email);
    expect(link).not.toBeNull();

    const first = await follow(link!);
    expect(first.status).toBe(302);
    expect(first.headers.get("set-cookie")).toMatch(/svc_session=svc_ses_/);
    const membership = await asRole("superuser", async (client) =>
      (await client.query("SELECT m.role FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.org_id = $1 AND p.email = $2", [orgId, email])).rows,
    );
    expect(membership).toEqual([{ role: "viewer" }]);

    const second = await follow(link!);
    expect(second.status).toBe(401);
    expect(second.headers.get("content-type")).toMatch(/text\/html/);
  });

  it("refuses a link after 15 minutes", async () => {
    await invite();
    await ask(email);
    const link = await mailedLink(email);
    await asRole("superuser", (client) => client.query("UPDATE magic_links SET expires_at = now() - interval '1 second' WHERE email = $1", [email]));
    expect((await follow(link!)).status).toBe(401);
  });

  it("sends nothing to an address nobody invited, and answers the same", async () => {
    const response = await ask(email);
    expect(response.status).toBe(202);
    expect(await mailedLink(email)).toBeNull();
  });

  it("is rate limited per client address", async () => {
    const from = address();
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      statuses.push((await callWith(MAIL(), "/auth/magic-link", { method: "POST", json: { email }, headers: { "x-forwarded-for": from } })).status);
    }
    expect(statuses).toContain(429);
  });
});
