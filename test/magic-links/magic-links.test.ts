import { beforeEach, describe, expect, inject, it } from "vitest";
import { inTenant } from "../../db/transaction";
import { createInvitation } from "../../worker/invitations/create";
import { callWith } from "../support/http";
import { seedOrganization } from "../support/seed";
import { appPool } from "../support/sql";
import { browser } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

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
  const mails = (await (await fetch(`${inject("mailBase")}/_fake/emails?to=${encodeURIComponent(to)}`)).json()) as Array<{
    subject: string;
    text: string;
    authorization: string;
  }>;
  const last = mails[mails.length - 1];
  if (!last) return null;
  expect(last.subject).toBe("Sign in to Acme Cloud");
  expect(last.authorization).toBe("Bearer mail-key-for-tests");
  return /https:\/\/cp\.example\.com(\/auth\/magic-link\/callback\?token=\S+)/.exec(last.text)![1]!;
}

const follow = (link: string) => callWith(MAIL(), link, { headers: { "x-forwarded-for": address() }, redirect: "manual" });

describe("magic-link sign-in", () => {
  it("is not served unless mail is configured", async () => {
    expect(statusAndCode(await ask(email, {} as ReturnType<typeof MAIL>))).toEqual([404, "not_found"]);
  });

  it("mails an invited address a link that signs in once and joins the organization", async () => {
    await invite("viewer");
    expect((await ask(email)).status).toBe(202);
    const link = await mailedLink(email);
    expect(link).not.toBeNull();

    const first = await follow(link!);
    expect(first.status).toBe(302);
    expect(first.headers.get("set-cookie")).toMatch(/svc_session=svc_ses_/);
    const membership = await asRole(
      "superuser",
      async (client) =>
        (await client.query("SELECT m.role FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.org_id = $1 AND p.email = $2", [orgId, email])).rows,
    );
    expect(membership).toEqual([{ role: "viewer" }]);

    const second = await follow(link!);
    expect(second.status).toBe(401);
    expect(second.headers.get("content-type")).toMatch(/text\/html/);
  });

  it("signs in the address's own e-mail person, the same one every time, never a code-host person sharing the address", async () => {
    // An older code-host person whose code-host e-mail is the same address: the oldest person with it.
    const codehostPerson = await asRole(
      "superuser",
      async (client) =>
        (
          await client.query("INSERT INTO people (codehost_user_id, login, email, created_at) VALUES ($1, $2, $3, now() - interval '1 day') RETURNING id", [
            Math.floor(Math.random() * 1e12) + 1,
            `someone-${crypto.randomUUID().slice(0, 6)}`,
            email,
          ])
        ).rows[0].id as string,
    );
    await invite("member");
    /** The person a followed link signed in. */
    const signedIn = async (answer: Response) => {
      expect(answer.status).toBe(302);
      const token = /svc_session=([^;]+)/.exec(answer.headers.get("set-cookie")!)![1]!;
      return ((await (await browser(token).get("/auth/session")).json()) as { person: { id: string; email: string } }).person;
    };
    // Two links asked for while the invitation is open, used one after the other.
    await ask(email);
    const firstLink = (await mailedLink(email))!;
    await ask(email);
    const secondLink = (await mailedLink(email))!;
    expect(secondLink).not.toBe(firstLink);
    const second = await signedIn(await follow(secondLink));
    const first = await signedIn(await follow(firstLink));
    expect(second).toMatchObject({ email });
    expect(second.id).not.toBe(codehostPerson);
    expect(first.id).toBe(second.id);
    const memberships = await asRole("superuser", async (client) =>
      (await client.query("SELECT person_id FROM memberships WHERE org_id = $1", [orgId])).rows.map((row) => row.person_id),
    );
    expect(memberships).toEqual([second.id]);
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
    // At once: the limiter's bucket (20 a minute) takes them in whatever order they arrive.
    const statuses = await Promise.all(
      Array.from(
        { length: 22 },
        async () => (await callWith(MAIL(), "/auth/magic-link", { method: "POST", json: { email }, headers: { "x-forwarded-for": from } })).status,
      ),
    );
    expect(statuses).toContain(429);
  });
});
