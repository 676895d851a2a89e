// Two people in two browsers: an owner invites a second person, who signs in from the link, is told
// who invites them to which organization as what, accepts, sees the organization as a viewer (no
// mutating actions, no link to a page their role cannot open), and sees their view change when the
// owner makes them an admin.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installedAccount,
  launch,
  openSettled,
  personPage,
  said,
  screenshot,
  settingsNav,
  sidebar,
  signedIn,
  signInFrom,
  unique,
  LANDED,
  atBothWidths,
} from "./support/browser";
import { fake } from "./support/browser";

let browser: Browser;
let owner: Page;
let guest: Page;
const ownerLogin = unique("inviter");
const guestLogin = unique("guest");
let link = "";

beforeAll(async () => {
  browser = await launch();
  await installedAccount(ownerLogin);
  await fake("/_fake/users", { login: guestLogin, email: `${guestLogin}@example.test` });
  owner = await signedIn(browser, ownerLogin);
  await owner.waitForURL(LANDED);
});

afterAll(async () => {
  await browser?.close();
});

const section = (page: Page, name: string) => openSettled(page, name);

/** The navigation as the person sees it: the sidebar's entries, and those under its Settings entry, in order. */
async function navigation(page: Page): Promise<{ sidebar: string[]; settings: string[] }> {
  const entries = await sidebar(page).getByRole("link").allTextContents();
  await sidebar(page).getByRole("link", { name: "Settings" }).click();
  await settingsNav(page).getByRole("link").first().waitFor();
  return { sidebar: entries, settings: await settingsNav(page).getByRole("link").allTextContents() };
}

describe("inviting someone", () => {
  it("shows the owner the invitation link once", async () => {
    await section(owner, "Members");
    await said(owner, /No invitations yet/);
    // The only owner is offered no way to remove or demote themself, and is told why, at desktop and phone widths.
    const mine = owner.locator(`tr[data-login="${ownerLogin}"]`);
    await atBothWidths(owner, async () => {
      await mine.getByText("The only owner: make another member an owner first.").waitFor();
      await expect(mine.getByRole("button").count()).resolves.toBe(0);
    });
    await owner.getByLabel("Email address").fill(`${guestLogin}@example.test`);
    await owner.getByRole("form", { name: "Invite" }).getByLabel("Role").selectOption("viewer");
    await owner.getByRole("button", { name: "Invite", exact: true }).click();
    await said(owner, /send them the link/);
    link = (await owner.getByTestId("shown-once").textContent())!;
    expect(link).toMatch(/\/invitations\/accept\?token=/);
    await owner.getByRole("row", { name: /Pending/ }).waitFor();
  });

  it("lets the invited person sign in from the link and accept it", async () => {
    guest = await signedIn(browser, guestLogin, { startAt: link });
    await guest.getByRole("heading", { name: "You are invited" }).waitFor();
    await signInFrom(guest, "Sign in to accept");
    // Signing in comes back to the link, which now says what it offers, then offers acceptance.
    await guest.getByRole("button", { name: "Accept the invitation" }).waitFor();
    expect(await guest.getByTestId("invitation-offer").textContent()).toMatch(
      new RegExp(`^${ownerLogin} invites you to join .+ as viewer\\. \\(The link stops working in `),
    );
    // Elsewhere, a person in no organization yet is told how to get into one.
    await guest.goto("/");
    await guest.getByRole("heading", { name: "You belong to no organization yet" }).waitFor();
    await screenshot(guest, "waiting");
    await guest.goto(link);
    await guest.getByRole("button", { name: "Accept the invitation" }).click();
    await said(guest, /You joined .* as viewer\./);
    await guest.getByRole("link", { name: "Go to the console" }).click();
    await guest.waitForURL(LANDED);
  });

  it("shows a viewer no action their role may not take", async () => {
    await section(guest, "Environments");
    await expect(guest.getByRole("button", { name: "Create environment" }).count()).resolves.toBe(0);
    await expect(sidebar(guest).getByRole("link", { name: "Environments" }).getAttribute("aria-current")).resolves.toBe("page");
    // Only what a viewer may open (not Runtimes, Sessions, tokens, claims, provider keys, Billing, Leaving;
    // Analytics is the operating organization's only), the administrative pages under Settings.
    expect(await navigation(guest)).toEqual({
      sidebar: ["Overview", "Getting started", "Environments", "Checks", "Workloads", "Proposals", "Settings"],
      settings: ["General", "Members", "Connected clients", "Audit log"],
    });
    // On a page under Settings, its entry says it holds the current page.
    await expect(sidebar(guest).getByRole("link", { name: "Settings" }).getAttribute("aria-current")).resolves.toBe("true");
    await expect(settingsNav(guest).getByRole("link", { name: "General" }).getAttribute("aria-current")).resolves.toBe("page");
    await section(guest, "Members");
    await guest.getByRole("row", { name: new RegExp(ownerLogin) }).waitFor();
    for (const action of ["Change role", "Remove", "Invite", "Sync from the code host"]) {
      await expect(guest.getByRole("button", { name: action }).count()).resolves.toBe(0);
    }
    await section(guest, "Workloads");
    await expect(guest.getByRole("button", { name: "Define workload" }).count()).resolves.toBe(0);
    await screenshot(guest, "viewer-members");
  });

  it("changes the person's view when the owner makes them an admin", async () => {
    await owner.reload();
    const row = owner.getByRole("row", { name: new RegExp(guestLogin) });
    await row.getByLabel(/New role for/).selectOption("admin");
    await row.getByRole("button", { name: "Change role" }).click();
    await said(owner, `${guestLogin} is now admin.`);
    await owner.getByRole("row", { name: /Accepted/ }).waitFor();
    await screenshot(owner, "members");
    await guest.reload();
    await sidebar(guest).getByRole("link", { name: "Runtimes" }).waitFor();
    expect(await navigation(guest)).toEqual({
      sidebar: ["Overview", "Getting started", "Environments", "Checks", "Workloads", "Runtimes", "Proposals", "Settings"],
      settings: ["General", "Members", "Sessions", "Connected clients", "Tokens", "Repository claims", "Model provider keys", "Audit log", "Leaving"],
    });
    await section(guest, "Members");
    await guest.getByRole("button", { name: "Invite", exact: true }).waitFor();
    // An admin may not touch the owner: the owner's row offers nothing.
    await expect(
      guest
        .getByRole("row", { name: new RegExp(ownerLogin) })
        .getByRole("button")
        .count(),
    ).resolves.toBe(0);
  });
});

describe("an invitation nobody used", () => {
  it("gets a new link when resent, and stops working when revoked", async () => {
    const address = `${unique("other")}@example.test`;
    await section(owner, "Members");
    await owner.getByLabel("Email address").fill(address);
    await owner.getByRole("button", { name: "Invite", exact: true }).click();
    await said(owner, `Invitation made for ${address}; send them the link.`);
    const first = await owner.getByTestId("shown-once").textContent();
    const row = owner.getByRole("row", { name: new RegExp(address) });
    await row.getByRole("button", { name: "Resend" }).click();
    await row.getByText(/send them the link/).waitFor();
    await expect(owner.getByTestId("shown-once").textContent()).resolves.not.toBe(first);
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await row.getByRole("cell", { name: "Revoked", exact: true }).waitFor();
  });
});

describe("the organization's settings and sessions", () => {
  it("renames the organization, and the switcher shows the new name", async () => {
    await section(owner, "Settings");
    await owner.getByLabel("Display name").fill("Renamed Org");
    await owner.getByRole("button", { name: "Save name" }).click();
    await said(owner, "Renamed to Renamed Org.");
    await owner
      .getByRole("combobox", { name: "Organization" })
      .getByRole("option", { name: /Renamed Org/ })
      .waitFor({ state: "attached" });
  });

  it("lets the owner sign the other person out everywhere", async () => {
    await section(owner, "Sessions");
    const row = owner.getByRole("row", { name: new RegExp(guestLogin) });
    await row.getByRole("button", { name: "Sign out everywhere" }).click();
    await row.getByRole("button", { name: "Yes, sign out everywhere" }).click();
    await said(owner, /Ended 1 session\(s\)\./);
    await guest.reload();
    await guest.getByRole("link", { name: "Sign in with the code host" }).waitFor();
  });
});

describe("the organization switcher", () => {
  it("moves a person who belongs to two organizations between them, on the same section", async () => {
    await fake("/_fake/app/installations", { account: guestLogin });
    await signInFrom(guest);
    const switcher = guest.getByRole("combobox", { name: "Organization" });
    await switcher.getByRole("option", { name: `${guestLogin} (owner)` }).waitFor({ state: "attached" });
    await section(guest, "Members");
    await switcher.selectOption({ label: `${guestLogin} (owner)` });
    await guest.waitForURL(new RegExp(`/o/${guestLogin}/members$`));
    await guest.getByRole("row", { name: new RegExp(`${guestLogin}.*owner`) }).waitFor();
    await switcher.selectOption({ label: "Renamed Org (admin)" });
    await guest.locator(`tr[data-login="${ownerLogin}"]`).waitFor();
  });
});

describe("an invitation accepted by an account made on the fake code host's own page", () => {
  it("takes the e-mail given when the account is made, so its invitation is accepted", async () => {
    const login = unique("newcomer");
    const address = `${login}@example.test`;
    await section(owner, "Members");
    await owner.getByLabel("Email address").fill(address);
    await owner.getByRole("button", { name: "Invite", exact: true }).click();
    await said(owner, `Invitation made for ${address}; send them the link.`);
    const invitation = (await owner.getByTestId("shown-once").textContent())!;

    const newcomer = await personPage(browser);
    await newcomer.goto(invitation);
    await newcomer.getByRole("link", { name: "Sign in to accept" }).click();
    await newcomer.getByRole("heading", { name: "Sign in to the fake code host" }).waitFor();
    await newcomer.getByLabel("Login").fill(login);
    await newcomer.getByLabel(/Public e-mail address/).fill(address);
    await newcomer.getByLabel(/Install the App on it/).uncheck();
    await newcomer.getByRole("button", { name: "Create and sign in" }).click();
    await newcomer.getByRole("button", { name: "Accept the invitation" }).click();
    await said(newcomer, /You joined .* as member\./);
    await newcomer.context().close();
  });
});

describe("an invitation to an address the person made theirs after signing in", () => {
  it("counts the new address when they read it again from the code host, without signing out", async () => {
    const login = unique("changed");
    await fake("/_fake/users", { login, email: `${login}-old@example.test` });
    const address = `${login}-new@example.test`;
    await section(owner, "Members");
    await owner.getByLabel("Email address").fill(address);
    await owner.getByRole("button", { name: "Invite", exact: true }).click();
    await said(owner, `Invitation made for ${address}; send them the link.`);
    const invitation = (await owner.getByTestId("shown-once").textContent())!;

    const person = await signedIn(browser, login);
    await person.getByRole("heading", { name: "You belong to no organization yet" }).waitFor();
    await person.goto(invitation);
    await said(person, /This invitation is for another e-mail address/);
    // The person makes the invited address their public one on the code host, and reads it again from here.
    await fake("/_fake/users", { login, email: address });
    await person.getByRole("link", { name: "Read my e-mail from the code host again" }).click();
    await person.getByRole("button", { name: "Accept the invitation" }).click();
    await said(person, /You joined .* as member\./);
    await person.context().close();
  });
});
