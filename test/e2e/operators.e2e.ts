// Operators: `svc admin` creates them (the password only from SVC_ADMIN_BOOTSTRAP_PASSWORD or standard
// input, at least 12 characters, no surrounding whitespace), and an operator signs in to /admin in
// Chromium, finds an organization, suspends it (with a reason and a confirmation) and lifts the
// suspension, while the organization's owner sees it in a banner on every page, and sees the other pages.
import { spawn } from "node:child_process";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { base, checkboxLayout, installedAccount, LANDED, launch, openPage, orgPathOf, said, screenshot, signedIn, unique } from "./support/browser";

const database = inject("e2eDatabase");
const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * The operator command line as a person runs it: the package's `svc` bin (cli/bin.mjs, tsx's loader in
 * the one process, where `tsx cli/svc.ts` starts a second Node), to its end. Spawned, not spawnSync, so
 * that a test can run independent commands at once.
 */
function svc(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  const child = spawn(process.execPath, [`${ROOT}cli/bin.mjs`, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_ADMIN_DATABASE_URL: database.operator, SVC_DATABASE_URL: database.app, ...options.env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  // A command that refuses before reading its input closes the pipe first.
  child.stdin.on("error", () => {});
  child.stdin.end(options.input ?? "");
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const operators = async () => (await svc(["admin", "list"])).stdout.split("\n").filter(Boolean);
const login = unique("ops");
const password = "a sound operator password";

describe("svc admin", () => {
  it("never takes the password as an argument", async () => {
    const argumentsTried = [
      ["admin", "bootstrap", login, password],
      ["admin", "bootstrap", login, "--password", password],
      ["admin", "bootstrap", login, `--password=${password}`],
    ];
    // At once: each is refused before anything is written.
    const runs = await Promise.all(argumentsTried.map((args) => svc(args)));
    for (const [index, run] of runs.entries()) {
      const args = argumentsTried[index]!;
      expect({ args, status: run.status }).toEqual({ args, status: 64 });
      expect(run.stderr).toMatch(/never given as an argument; set SVC_ADMIN_BOOTSTRAP_PASSWORD or send it on standard input/);
    }
    expect(await operators()).not.toContain(login);
  });

  it("refuses a password under 12 characters or with leading or trailing whitespace, from either source", async () => {
    // At once: each is refused before anything is written.
    const refusals = await Promise.all(
      [
        { run: svc(["admin", "bootstrap", login], { input: "elevenchars\n" }), reason: /from standard input is refused: .*at least 12 characters/ },
        {
          run: svc(["admin", "bootstrap", login], { env: { SVC_ADMIN_BOOTSTRAP_PASSWORD: "elevenchars" } }),
          reason: /from SVC_ADMIN_BOOTSTRAP_PASSWORD is refused: .*at least 12 characters/,
        },
        { run: svc(["admin", "bootstrap", login], { input: ` ${password}\n` }), reason: /from standard input is refused: .*whitespace/ },
        { run: svc(["admin", "bootstrap", login], { input: `${password} \n` }), reason: /from standard input is refused: .*whitespace/ },
        {
          run: svc(["admin", "bootstrap", login], { env: { SVC_ADMIN_BOOTSTRAP_PASSWORD: `${password}\t` } }),
          reason: /from SVC_ADMIN_BOOTSTRAP_PASSWORD is refused: .*whitespace/,
        },
      ].map(async ({ run, reason }) => ({ run: await run, reason })),
    );
    for (const { run, reason } of refusals) {
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(reason);
    }
    expect(await operators()).not.toContain(login);
  });

  it("bootstraps the first operator from standard input, once; adds, resets and removes others", async () => {
    const first = await svc(["admin", "bootstrap", login], { input: `${password}\n` });
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ login });
    const again = await svc(["admin", "bootstrap", unique("ops")], { input: `${password}\n` });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already exists/);

    const other = unique("ops");
    expect((await svc(["admin", "add", other], { env: { SVC_ADMIN_BOOTSTRAP_PASSWORD: password } })).status).toBe(0);
    expect((await svc(["admin", "reset-password", other], { input: "another sound password\n" })).status).toBe(0);
    expect(await operators()).toEqual(expect.arrayContaining([login, other]));
    expect((await svc(["admin", "remove", other])).status).toBe(0);
    expect(await operators()).not.toContain(other);
    expect((await svc(["admin", "remove", other])).status).toBe(1);
  });
});

/** Fills the row's suspension form (opening it when closed) with `reason`, confirms and submits it. */
async function suspend(row: Locator, reason: string) {
  const open = row.getByRole("button", { name: "Suspend…" });
  if ((await open.getAttribute("aria-expanded")) !== "true") await open.click();
  await row.getByLabel(/Reason/).fill(reason);
  // The confirmation's box sits beside its sentence.
  expect(await checkboxLayout(row.getByRole("checkbox"))).toBe("row");
  await row.getByRole("checkbox").check();
  await row.getByRole("button", { name: /^Suspend (?!…)/ }).click();
}

describe("the operator portal in Chromium", () => {
  let browser: Browser;
  let page: Page;
  const slug = unique("portal");
  // A name is the customer's own text: the portal shows it as text, never as markup.
  const name = `Portal Demo <img src=x onerror="document.title='injected'">`;

  beforeAll(async () => {
    browser = await launch();
    const created = await svc(["orgs", "create", slug, "--name", name]);
    if (created.status !== 0) throw new Error(`orgs create failed: ${created.stderr}`);
    page = await (await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } })).newPage();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("refuses a wrong password with a sentence, then signs the operator in to the organizations page", async () => {
    await page.goto("/admin");
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor();
    await page.getByLabel("Login").fill(login);
    await page.getByLabel("Password").fill("not the password at all");
    await page.getByRole("button", { name: "Sign in" }).click();
    await said(page, "That login and password do not match an operator.");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Organizations" }).waitFor();
    await page
      .getByText(`Operator ${login}`)
      .or(page.getByText(login, { exact: true }))
      .first()
      .waitFor();
  });

  it("finds an organization, suspends it and lifts the suspension", async () => {
    await page.getByLabel("Search organizations").fill(slug);
    await page.getByRole("button", { name: "Search" }).click();
    const row = page.locator(`tr[data-slug="${slug}"]`);
    await row.waitFor();
    // The search answer replaces the first page of organizations, which also lists this one.
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    await expect(row.textContent()).resolves.toMatch(/Portal Demo.*free.*0.*0 environments.*active/s);
    await expect(row.getByText(name, { exact: true }).count()).resolves.toBe(1);
    await expect(page.locator("img").count()).resolves.toBe(0);
    await suspend(row, "Unpaid invoices since March.");
    await said(page, `${slug} is suspended.`);
    await row.getByText("suspended (operator)").waitFor();
    await row.getByText("Reason: Unpaid invoices since March.").waitFor();
    await screenshot(page, "admin-organizations");
    await row.getByRole("button", { name: "Lift suspension" }).click();
    await said(page, `${slug} is no longer suspended.`);
    await row.getByText("active").waitFor();
  });

  it("asks a reason before suspending; the organization's owner then sees it on every page, not only Settings, until it is lifted", async () => {
    const owner = unique("suspended-owner");
    await installedAccount(owner);
    const member = await signedIn(browser, owner);
    await member.waitForURL(LANDED);
    const orgPath = orgPathOf(member);
    const orgSlug = orgPath.split("/").at(-1)!;

    await page.getByLabel("Search organizations").fill(orgSlug);
    await page.getByRole("button", { name: "Search" }).click();
    const row = page.locator(`tr[data-slug="${orgSlug}"]`);
    await row.waitFor();
    await row.getByRole("button", { name: "Suspend…" }).click();
    // Neither the reason nor the confirmation may be left out: the browser keeps the form.
    await row.getByRole("button", { name: `Suspend ${orgSlug}` }).click();
    await expect(
      row.getByLabel(/Reason/).evaluate((field) => (field as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing),
    ).resolves.toBe(true);
    await suspend(row, "Abuse report #42: crypto mining on preview environments.");
    await said(page, `${orgSlug} is suspended.`);

    await member.goto(`${orgPath}/environments`);
    const banner = member.getByRole("region", { name: "Suspension" });
    await banner.getByText("This organization is suspended").waitFor();
    await expect(banner.textContent()).resolves.toMatch(/by the service's operators, who say: “Abuse report #42: crypto mining on preview environments\.”/);
    await expect(banner.textContent()).resolves.toMatch(/Still working: .*data exports.*claims of their teardowns and cancellations/);
    await expect(banner.locator("time").count()).resolves.toBe(1);
    await screenshot(member, "console-suspended");
    // The overview says it once, in the banner, and not again in its Plan tile.
    await member.getByRole("link", { name: "Overview" }).click();
    const plan = member.getByRole("region", { name: "Plan" });
    await plan.getByText(/plan\./).waitFor();
    await banner.waitFor();
    await expect(plan.textContent()).resolves.not.toMatch(/suspended/);
    await openPage(member, "Members");
    await member.getByRole("heading", { level: 1, name: "Members" }).waitFor();
    await banner.waitFor();

    await row.getByRole("button", { name: "Lift suspension" }).click();
    await said(page, `${orgSlug} is no longer suspended.`);
    await member.reload();
    await member.getByRole("heading", { level: 1, name: "Members" }).waitFor();
    await expect(banner.count()).resolves.toBe(0);
    await member.context().close();
  });

  it("shows what the site's contact form sent", async () => {
    const company = unique("Lead Co");
    const sent = await fetch(`${base}/v1/leads`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "10.200.0.7" },
      body: JSON.stringify({ name: "Ada Lovelace", email: "ada@example.com", company, message: "Enterprise, please." }),
    });
    expect(sent.status).toBe(201);
    await page.getByRole("link", { name: "Leads" }).click();
    await page.getByRole("heading", { level: 1, name: "Leads and applications" }).waitFor();
    await page
      .getByRole("row", { name: new RegExp(company) })
      .getByText("Enterprise, please.")
      .waitFor();
  });

  it("shows the failure groups and the operators, and signs out", async () => {
    await page.getByRole("link", { name: "Failures" }).click();
    await page.getByRole("heading", { level: 1, name: "Failure groups" }).waitFor();
    await page.getByRole("link", { name: "Operators" }).click();
    await page.getByRole("heading", { level: 1, name: "Operators" }).waitFor();
    await page.getByRole("cell", { name: login, exact: true }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor();
    // The session is gone, not just the page: a reload asks to sign in again.
    await page.reload();
    await page.getByRole("heading", { name: "Operator sign-in" }).waitFor();
  });
});
