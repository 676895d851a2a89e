// An owner's day in the console, in Chromium: sign in through the code host, create an engine token
// (shown once), see the engine's environment, tear it down and see the engine confirm it, start a
// workload run and see an engine claim it, verify the audit log, and be told why the last owner
// cannot close their account. Then the README's quick start as written: a new login made on the fake
// code host's sign-in page, its organization, the README's event on screen, and a run's life.
import type { Browser, Page } from "playwright-core";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  base,
  codehost,
  installedAccount,
  launch,
  personPage,
  said,
  screenshot,
  signedIn,
  unique,
  orgPathOf,
  openPage,
  sidebar,
  settingsNav,
  atBothWidths,
  pageWidth,
} from "./support/browser";
import { claimRun, heartbeat, report } from "./support/engine";
import { asOrganization } from "./support/database";
import { QUICK_START_LOGIN, quickStartEvents } from "./support/quick-start";

/** A claim as the command line made it before claims needed proof. */
const legacyClaim = (slug: string, repository: string) =>
  asOrganization(slug, (client, orgId) =>
    client.query("INSERT INTO repository_claims (org_id, repository, source) VALUES ($1, $2, 'cli')", [orgId, repository]),
  );

/** axe-core's serious and critical violations on the page (evaluated through the browser's protocol, which no page policy blocks). */
async function seriousViolations(on: Page): Promise<string[]> {
  await on.evaluate(readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
  return on.evaluate<string[]>(
    'axe.run(document).then((result) => result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id))',
  );
}

let browser: Browser;
let page: Page;
const login = unique("owner");
let orgPath = "";
let engineToken = "";

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login, [`${login}/shop`]);
  page = await signedIn(browser, login);
});

afterAll(async () => {
  await browser?.close();
});

const openOn = async (on: Page, section: string) => {
  await openPage(on, section);
  await on.getByRole("heading", { level: 1, name: section }).waitFor();
};
const open = (section: string) => openOn(page, section);

/** Creates an engine token on the Tokens page; its value, shown once. */
async function engineTokenFrom(on: Page, name: string): Promise<string> {
  await openOn(on, "Tokens");
  await on.getByLabel("Name").fill(name);
  await on.getByRole("button", { name: "Create token" }).click();
  await said(on, `Created ${name}.`);
  return (await on.getByTestId("shown-once").textContent())!;
}

describe("the owner", () => {
  it("signs in through the code host and lands in their new organization, which has nothing yet", async () => {
    // Nothing has reported yet, so the organization's home is getting started.
    await page.waitForURL(/\/getting-started$/);
    orgPath = orgPathOf(page);
    await open("Environments");
    await said(page, /No environments yet/);
    // At most 10 entries in the sidebar; the administrative pages under its Settings entry.
    expect(await sidebar(page).getByRole("link").count()).toBeLessThanOrEqual(10);
    await sidebar(page).getByRole("link", { name: "Settings" }).click();
    for (const section of ["General", "Tokens", "Members", "Sessions", "Audit log", "Billing"])
      await expect(settingsNav(page).getByRole("link", { name: section }).count()).resolves.toBe(1);
  });

  it("gives a page shorter than the window its spare height, never the header band, at desktop and phone widths", async () => {
    await open("Environments");
    await said(page, /No environments yet/);
    const height = async (selector: string) => (await page.locator(selector).first().boundingBox())!.height;
    // At the 1280x800 the issue reproduced the stretched header with, and a phone's width.
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      expect(await height(".top"), `${viewport.width} px`).toBeLessThan(120);
      if (viewport.width > 720) expect(await height("main")).toBeGreaterThan(viewport.height - 120);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("creates an engine token, shown once", async () => {
    await open("Tokens");
    await said(page, /No tokens yet/);
    engineToken = await engineTokenFrom(page, "ci engine");
    expect(engineToken.length).toBeGreaterThan(20);
    await page.getByRole("row", { name: /ci engine/ }).waitFor();
    await screenshot(page, "tokens");
    await page.reload();
    await page.getByRole("row", { name: /ci engine/ }).waitFor();
    await expect(page.getByText(engineToken).count()).resolves.toBe(0);
  });

  it("sees the environment its engine reports, with its preview address", async () => {
    await report(engineToken, "pr-7", "environment.queued", {
      repository: `${login}/shop`,
      branch: "feature/cart",
      pull_request: 7,
      preview_urls: ["https://pr-7.preview.example/"],
    });
    await report(engineToken, "main-1", "environment.ready", { repository: `${login}/shop`, branch: "main" });
    await open("Environments");
    await page.getByRole("link", { name: "pr-7" }).waitFor();
    await screenshot(page, "environments");
    // A phone in the dark: the same page at 360 px wide with the system's dark scheme.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "environments-360-dark");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    await page.getByRole("link", { name: "pr-7" }).click();
    await page.getByRole("link", { name: "https://pr-7.preview.example/" }).waitFor();
    await expect(page.getByTestId("teardown").textContent()).resolves.toBe("none");
  });

  it("starts load and agent runs on it, each reporting what the code host said", async () => {
    await page.getByRole("button", { name: "Run load" }).click();
    await said(page, /^Load run requested\. The workflow was started on the code host\./);
    await page.getByLabel(/Agent workflows/).fill("checkout, search");
    await page.getByRole("button", { name: "Run agents" }).click();
    await said(page, /^Agent run requested\./);
  });

  it("asks the code host to create an environment for a branch, and is told the code host has no such workflow", async () => {
    await open("Environments");
    await page.getByLabel("Repository (owner/name)").fill(`${login}/shop`);
    await page.getByLabel("Branch").fill("feature/search");
    // Every repository holds control-plane.yml (local/fake-codehost.ts), not this one.
    await page.getByLabel("Workflow file (optional)").fill("preview.yml");
    await page.getByRole("button", { name: "Create environment" }).click();
    await said(page, /^Requested environment feature-search-[0-9a-f]{8}\. The code host refused to start the workflow \(404\)/);
    await page.getByRole("link", { name: "pr-7" }).click();
  });

  it("tears it down and sees the engine confirm it", async () => {
    await page.getByRole("button", { name: "Tear down" }).click();
    await page.getByRole("button", { name: "Yes, tear down" }).click();
    await said(page, /Teardown requested\./);
    await page
      .getByTestId("teardown")
      .getByText(/requested, waiting for the engine/)
      .waitFor();
    await report(engineToken, "pr-7", "environment.torn_down");
    // No reload: the page hears it on the live channel.
    await page.getByTestId("teardown").getByText("confirmed by the engine").waitFor({ timeout: 2000 });
    await expect(page.getByTestId("env-state").textContent()).resolves.toBe("Torn down");
    // A torn-down environment offers no more work.
    await expect(page.getByRole("button", { name: "Tear down" }).count()).resolves.toBe(0);
    await screenshot(page, "environment");
  });

  it("defines a workload, starts a run, and sees an engine claim it", async () => {
    await open("Workloads");
    await said(page, /No workloads defined yet/);
    await page.getByRole("form", { name: "Define workload" }).getByLabel("Name").fill("smoke");
    await page.getByRole("button", { name: "Define workload" }).click();
    await said(page, "Defined smoke (version 1).");
    await page.getByLabel("Environment").selectOption("main-1");
    await page.getByRole("button", { name: "Start run" }).click();
    await said(page, /Run of smoke v1 recorded on main-1/);
    const run = page.getByRole("row", { name: /smoke v1/ });
    await run.getByText("not held").waitFor();
    const claimed = await claimRun(engineToken, "main-1");
    expect(claimed.status).toBe(200);
    await run.getByText(/held, the lease ends in/).waitFor({ timeout: 2000 });
    await expect(run.getByTestId("run-state").textContent()).resolves.toBe("Accepted");
    await screenshot(page, "workloads");
  });

  it("sees no repository claim yet, and is told how to make one", async () => {
    await open("Repository claims");
    await said(page, /No repository is claimed/);
  });

  it("sees a claim made before claims needed proof marked unproven, with how to prove it, and written to the audit log", async () => {
    await legacyClaim(orgPath.split("/").pop()!, `${login}/legacy`);
    await page.reload();
    const row = page.getByRole("row", { name: new RegExp(`${login}/legacy`) });
    await row.getByText("Unproven", { exact: true }).waitFor();
    await row.getByText(/its workflows get no engine tokens/).waitFor();
    await row.getByText(/claiming it again/).waitFor();
    await screenshot(page, "claims-unproven");
    await open("Audit log");
    await page.getByRole("cell", { name: new RegExp(`marked the claim on ${login}/legacy unproven$`) }).waitFor();
  });

  it("reads the audit log and verifies its chain", async () => {
    await open("Audit log");
    // In sentences: who did what to what, by name, the action's code on hover; details in words, no JSON;
    // at desktop and phone widths.
    const created = page.locator('td[data-action="token.created"]').first();
    await atBothWidths(page, async (viewport) => {
      await expect(created.textContent()).resolves.toMatch(/ created the token \S/);
      await expect(created.getAttribute("title")).resolves.toBe("token.created");
      await expect(page.locator("main table").textContent()).resolves.not.toMatch(/[{}]/);
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(viewport.width);
    });
    await page.getByRole("button", { name: "Verify the chain" }).click();
    await said(page, /^Intact: \d+ entries/);
    // The button keeps its own width under its long sentence.
    expect((await page.getByRole("button", { name: "Verify the chain" }).boundingBox())!.width).toBeLessThan(250);
    // The whole log is offered here too, not only on Leaving.
    const download = await page.request.get((await page.getByRole("link", { name: "Download the audit log" }).getAttribute("href"))!);
    expect(download.status()).toBe(200);
    expect(await download.text()).toContain("token.created");
  });

  it("revokes the token", async () => {
    await open("Tokens");
    const row = page.getByRole("row", { name: /ci engine/ });
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await row.getByText(/^revoked/).waitFor();
    expect((await claimRun(engineToken, "main-1")).status).toBe(401);
  });

  it("is told, in the server's words, why the last owner cannot close their account", async () => {
    await page.getByRole("link", { name: login }).click();
    await page.getByRole("heading", { level: 1, name: "Your account" }).waitFor();
    await page.getByText("(this browser)").waitFor();
    // The organization stays in the frame: its switcher names it, its sections are a click away (on a
    // phone, in the menu).
    const slug = orgPath.split("/")[2]!;
    await expect(page.getByLabel("Organization").inputValue()).resolves.toBe(slug);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Environments" }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "Menu", exact: true }).click();
    await expect(page.getByLabel("Organization").inputValue()).resolves.toBe(slug);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Environments" }).waitFor();
    await page.getByRole("button", { name: "Menu", exact: true }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel(/to confirm/).fill(login);
    await expect(page.getByRole("button", { name: "Close my account" }).getAttribute("class")).resolves.toBe("danger");
    // What cannot be undone sits in the page's one red zone.
    await expect(page.getByRole("region", { name: "Close your account" }).getAttribute("class")).resolves.toBe("danger-zone");
    await page.getByRole("button", { name: "Close my account" }).click();
    await page.getByRole("alert").getByText(`You are the last owner of ${slug}; make someone else an owner first.`).waitFor();
    await screenshot(page, "account-refused");
  });
});

describe("the README's quick start, as written", () => {
  // README.md signs in as alice; on this shared fake a login of its own stands in for her.
  const person = unique("quick");
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8").replaceAll(`${QUICK_START_LOGIN}/`, `${person}/`);
  let quick: Page;
  let token = "";

  it("signs in through the fake code host's page, creating a new login with the App installed, and lands in its organization", async () => {
    quick = await personPage(browser);
    await quick.goto("/");
    await quick.getByRole("link", { name: "Sign in with the code host" }).click();
    await quick.getByRole("heading", { name: "Sign in to the fake code host" }).waitFor();
    await quick.getByRole("button", { name: "Sign in as octocat" }).waitFor();
    await screenshot(quick, "codehost-signin");
    await expect(seriousViolations(quick)).resolves.toEqual([]);
    await quick.getByLabel("Login").fill(person);
    await expect(quick.getByLabel(/Install the App on it/).isChecked()).resolves.toBe(true);
    await quick.getByRole("button", { name: "Create and sign in" }).click();
    await quick.waitForURL(`${base}/o/${person}/getting-started`);
    await said(quick, /Waiting for the first event/);
  });

  it("posts the README's event with an engine token of that organization, and sees the environment with its preview address", async () => {
    token = await engineTokenFrom(quick, "quick start");
    const events = quickStartEvents(readme, new Date().toISOString().replace(/\.\d+Z$/, "Z"));
    const answer = await fetch(`${base}/v1/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ events }),
    });
    expect(answer.status).toBe(202);
    await openOn(quick, "Environments");
    await quick.getByRole("link", { name: "pr-1" }).click();
    await quick.getByRole("link", { name: "https://pr-1.preview.example/" }).waitFor();
  });

  it("requests a workload run that the code host starts, and the engine claims, keeps and finishes it", async () => {
    await openOn(quick, "Workloads");
    await quick.getByRole("form", { name: "Define workload" }).getByLabel("Name").fill("smoke");
    await quick.getByRole("button", { name: "Define workload" }).click();
    await said(quick, "Defined smoke (version 1).");
    await quick.getByLabel("Environment").selectOption("pr-1");
    await quick.getByRole("button", { name: "Start run" }).click();
    await said(quick, /Run of smoke v1 recorded on pr-1.* The workflow was started on the code host\./);
    const dispatched = (await (await fetch(`${codehost}/_fake/dispatches?repository=${person}/shop`)).json()) as {
      dispatches: Array<{ workflow: string; ref: string; inputs: Record<string, string> }>;
    };
    expect(dispatched.dispatches).toEqual([
      {
        workflow: "control-plane.yml",
        ref: "feature/cart",
        inputs: { command: "workload", env_id: "pr-1", run_id: expect.any(String) },
        repository: `${person}/shop`,
        installation: expect.any(Number),
      },
    ]);

    const claimed = await claimRun(token, "pr-1");
    const run = claimed.body.run as { id: string; lease: { id: string } };
    expect(run.id).toBe(dispatched.dispatches[0]!.inputs.run_id);
    expect((await heartbeat(token, run.id, run.lease.id)).status).toBe(200);
    await report(token, "pr-1", "workload.finished", { runId: run.id, leaseId: run.lease.id });
    await quick
      .getByRole("row", { name: /smoke v1/ })
      .getByTestId("run-state")
      .getByText("Finished", { exact: true })
      .waitFor();
  });
});
