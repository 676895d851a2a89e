// With mail configured, creating or resending an invitation mails its link (after the invitation is
// committed); without mail, the link is only answered, and nothing is sent.
import { describe, expect, inject, it } from "vitest";
import { callWith } from "../support/http";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";

const MAIL = () => ({
  SVC_MAIL_API_KEY: "mail-key-for-tests",
  SVC_MAIL_FROM: "Control Plane <invitations@example.com>",
  SVC_PUBLIC_URL: "https://cp.example.com",
  SVC_MAIL_BASE_URL: inject("mailBase"),
  SVC_PRODUCT_NAME: "Acme Cloud",
});

const mailsTo = async (to: string) =>
  (await (await fetch(`${inject("mailBase")}/_fake/emails?to=${encodeURIComponent(to)}`)).json()) as Array<{ subject: string; text: string }>;

async function owner() {
  const orgId = (await seedOrganization("mailed")).id;
  const session = await seedSession(await seedPerson(`mailed-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]));
  const csrf = await browser(session).csrf();
  const post = (overrides: Record<string, unknown>, name: string, input: unknown) =>
    callWith(overrides, `/rpc/${name}`, { method: "POST", json: input, headers: { cookie: `svc_session=${session}`, "x-svc-csrf": csrf } });
  return { orgId, post };
}

type Delivered = { result: { data: { invitation: { id: string }; link: string; mailed: boolean } } };

describe("invitations are mailed when mail is configured", () => {
  it("mails the link on create and the new link on resend, and still answers it once", async () => {
    const { orgId, post } = await owner();
    const email = `mailed-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const created = (await (await post(MAIL(), "invitations.create", { orgId, email, role: "member" })).json()) as Delivered;
    expect(created.result.data.mailed).toBe(true);
    let mails = await mailsTo(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/^You are invited to .+ on Acme Cloud$/);
    expect(mails[0]!.text).toContain(created.result.data.link);

    const resent = (await (await post(MAIL(), "invitations.resend", { orgId, invitationId: created.result.data.invitation.id })).json()) as Delivered;
    mails = await mailsTo(email);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.text).toContain(resent.result.data.link);
    expect(resent.result.data.link).not.toBe(created.result.data.link);
  });

  it("sends nothing without mail configured, and says so", async () => {
    const { orgId, post } = await owner();
    const email = `unmailed-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const created = (await (await post({}, "invitations.create", { orgId, email, role: "member" })).json()) as Delivered;
    expect(created.result.data).toMatchObject({ mailed: false, link: expect.stringContaining("/invitations/accept?token=") });
    expect(await mailsTo(email)).toEqual([]);
  });
});
