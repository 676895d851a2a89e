// The last 30 days in Chromium: an engine reports runs and a failed verdict, the sweep rolls them up
// (`svc cron run sweep`, as under npm start), and the Overview and the environment's page draw them,
// each chart with its numbers on hover and in a table.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedAccount, launch, openPage, said, screenshot, signedIn, unique, LANDED, atBothWidths, pageWidth } from "./support/browser";
import { report } from "./support/engine";
import { svc } from "./support/svc";

let browser: Browser;
let page: Page;
const login = unique("activity");
const repository = `${login}/shop`;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login, [repository]);
  page = await signedIn(browser, login);
  await page.waitForURL(LANDED);
  await openPage(page, "Tokens");
  await page.getByLabel("Name").fill("activity engine");
  await page.getByRole("button", { name: "Create token" }).click();
  await said(page, "Created activity engine.");
  const token = (await page.getByTestId("shown-once").textContent())!;
  await report(token, "main-1", "environment.ready", { repository, branch: "main" });
  for (const [runId, outcome] of [
    ["n-1", "passed"],
    ["n-2", "failed"],
    ["n-3", "passed"],
  ] as const) {
    await report(token, "main-1", "run.started", { runId, name: "nightly" });
    await report(token, "main-1", "run.finished", { runId, outcome });
  }
  await report(token, "main-1", "verdict.recorded", { runId: "n-2", name: "checkout", verdict: "fail" });
  expect(svc(["cron", "run", "sweep"]).status).toBe(0);
});

afterAll(async () => {
  await browser?.close();
});

const chart = (on: Page, title: RegExp) => on.getByRole("img", { name: title });

describe("activity you can see", () => {
  it("draws the organization's last 30 days on the Overview, with each day's numbers on hover and in a table", async () => {
    await openPage(page, "Overview");
    const runs = chart(page, /^Runs by outcome, daily/);
    await runs.waitFor();
    expect(await runs.getAttribute("aria-label")).toMatch(/: 3 in all, at most 3 a day$/);
    // Hovering today's bar shows its numbers (an SVG title).
    await expect(runs.locator("g").last().locator("title").textContent()).resolves.toBe(`${today}, Runs passed 2, Runs failed 1, Runs errored or cancelled 0`);
    expect(await chart(page, /^Failed verdicts, daily/).getAttribute("aria-label")).toMatch(/: 1 in all/);
    // 1 environment event, 6 run events, 1 verdict.
    expect(await chart(page, /^Events, daily/).getAttribute("aria-label")).toMatch(/: 8 in all/);
    // The owner holds tokens.manage: the month's spend against the budget (none spent, no budget).
    await chart(page, /^Model spend this month, daily/).waitFor();
    await page.getByText("The numbers").click();
    const row = page.getByRole("row", { name: new RegExp(`^${today}`) });
    await expect(row.getByRole("cell").allTextContents()).resolves.toEqual(["8", "2", "1", "0", "1", "0", "$0.00", "none"]);
    // What the bars measure: a scale beside them (the tallest bar, and zero) and the dates under them, at
    // desktop and phone widths.
    const figure = page.locator("figure").filter({ has: runs });
    const first = new Date(Date.now() - 29 * 86_400_000);
    const dayText = (day: Date) => day.toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
    await atBothWidths(page, async (viewport) => {
      await expect(figure.locator(".scale span").allTextContents()).resolves.toEqual(["3", "0"]);
      const dates = await figure.locator(".dates span").allTextContents();
      expect([dates[0], dates[2]]).toEqual([dayText(first), dayText(new Date())]);
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(viewport.width);
    });
    await screenshot(page, "overview-activity");
  });

  it("says once that there is nothing yet to a new organization, instead of drawing empty charts", async () => {
    const newcomer = unique("activity-new");
    await installedAccount(newcomer, [`${newcomer}/shop`]);
    const fresh = await signedIn(browser, newcomer);
    await fresh.waitForURL(LANDED);
    await openPage(fresh, "Overview");
    await fresh.getByText(/^Nothing in the last 30 days yet/).waitFor();
    await expect(fresh.getByRole("img").count()).resolves.toBe(0);
    await fresh.close();
  });

  it("draws one environment's days on its page, without the organization's spend", async () => {
    await page.goto(`${new URL(page.url()).pathname.replace(/\/overview$/, "")}/environments/main-1`);
    const runs = chart(page, /^Runs by outcome, daily/);
    await runs.waitFor();
    expect(await runs.getAttribute("aria-label")).toMatch(/: 3 in all/);
    await expect(chart(page, /^Model spend this month/).count()).resolves.toBe(0);
  });
});
