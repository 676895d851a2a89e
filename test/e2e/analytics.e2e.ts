// The installation analytics dashboard in Chromium: beacon events recorded by the control plane, the
// rollup run (svc analytics rollup), and the operating organization's owner reads totals, charts, the
// funnel and the retention cohorts; an owner of any other organization is offered no Analytics link,
// and an address typed by hand says once that the analytics are not theirs.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { analyticsRollupFromNode } from "../../cli/commands/analytics";
import { parseConfig } from "../../worker/config/parse";
import { base, installedAccount, launch, screenshot, signedIn, unique, LANDED, orgPathOf, openPage, sidebar } from "./support/browser";

const { analyticsOperator, workerEnv } = inject("e2e");
let browser: Browser;
let page: Page;

const open = async (tab: Page, section: string, heading: string) => {
  await openPage(tab, section);
  await tab.getByRole("heading", { level: 1, name: heading }).waitFor();
};

async function beacon(events: Array<{ name: string; channel: string; page: string }>) {
  const response = await fetch(`${base}/v1/site/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      events: events.map((event, index) => ({
        id: crypto.randomUUID(),
        name: event.name,
        session: `dash${index % 2}-${crypto.randomUUID().slice(0, 8)}`,
        props: { channel: event.channel, page: event.page },
      })),
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { recorded: number };
}

beforeAll(async () => {
  browser = await launch();
  await installedAccount(analyticsOperator);
  page = await signedIn(browser, analyticsOperator);
  await page.waitForURL(LANDED);
  const sent = await beacon([
    { name: "page_landed", channel: "search", page: "/" },
    { name: "page_landed", channel: "social", page: "/pricing" },
    { name: "page_landed", channel: "social", page: "/docs" },
    { name: "signup_reached", channel: "social", page: "/signup" },
  ]);
  expect(sent.recorded).toBe(4);
  const parsed = parseConfig(workerEnv);
  if (!parsed.ok) throw new Error("the end-to-end configuration is refused");
  expect(await analyticsRollupFromNode(parsed.config)).toMatchObject({ deletedEvents: 0 });
});

afterAll(async () => {
  await browser?.close();
});

describe("the analytics dashboard", () => {
  it("shows the operating organization's owner the totals, charts, funnel and retention cohorts", async () => {
    // Offered in the operating organization, in a group of its own.
    await sidebar(page).getByRole("link", { name: "Analytics" }).waitFor();
    await open(page, "Analytics", "Installation analytics");
    const totals = page.locator("dl.totals");
    await totals.waitFor();
    const figure = async (term: string) => Number(await totals.locator(`dt:text-is("${term}") + dd`).textContent());
    expect(await figure("Pages landed on")).toBeGreaterThanOrEqual(3);
    expect(await figure("Sign-up reached")).toBeGreaterThanOrEqual(1);
    expect(await figure("Organizations created")).toBeGreaterThanOrEqual(1);
    expect(await figure("Sign-ups")).toBeGreaterThanOrEqual(1);
    // Seven daily charts and the funnel, each an image with a text alternative.
    await expect(page.getByRole("img").count()).resolves.toBe(8);
    expect(await page.getByRole("img", { name: /^Pages landed on, daily/ }).getAttribute("aria-label")).toMatch(/in all/);
    await page.getByRole("img", { name: /Landed on the site \(sessions\): \d+; Reached sign-up \(sessions\): \d+; First environment/ }).waitFor();
    await page
      .getByRole("listitem")
      .filter({ hasText: /^social: \d+$/ })
      .waitFor();
    // This week's cohort holds this organization (and those other tests made): its cell is a
    // percentage only when the cohort has at least five organizations, a count otherwise.
    const retention = page.getByRole("table");
    await expect(retention.getByRole("row").count()).resolves.toBe(13);
    const thisWeek = retention.getByRole("row").last();
    const organizations = Number(await thisWeek.getByRole("cell").nth(0).textContent());
    expect(organizations).toBeGreaterThanOrEqual(1);
    await expect(thisWeek.getByRole("cell").nth(1).textContent()).resolves.toMatch(organizations >= 5 ? /^\d+%$/ : /^\d+$/);
    await screenshot(page, "analytics");

    await page.getByRole("button", { name: "Last 7 days" }).click();
    await expect(page.getByRole("button", { name: "Last 7 days" }).getAttribute("aria-pressed")).resolves.toBe("true");
    await page.getByText(/^\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(UTC\)/).waitFor();
    await page.getByText("What is counted").click();
    await page.getByText("usage.active_organizations").waitFor();
  });

  it("offers an owner of another organization no Analytics link, and says once that they are not theirs", async () => {
    const login = unique("not-operator");
    await installedAccount(login);
    const other = await signedIn(browser, login);
    await other.waitForURL(LANDED);
    const nav = sidebar(other);
    await nav.getByRole("link", { name: "Settings" }).waitFor();
    await expect(nav.getByRole("link", { name: "Analytics" }).count()).resolves.toBe(0);
    // The address typed by hand: one sentence, and the console does not even ask the server.
    const asked: string[] = [];
    other.on("request", (request) => {
      if (new URL(request.url()).pathname.includes("analytics.")) asked.push(request.url());
    });
    await other.goto(`${new URL(other.url()).origin}${orgPathOf(other)}/analytics`);
    const sentence = other.getByText(/read only in the operating organization/);
    await sentence.waitFor();
    await expect(sentence.count()).resolves.toBe(1);
    await expect(other.getByRole("alert").count()).resolves.toBe(1);
    await expect(other.locator("dl.totals").count()).resolves.toBe(0);
    expect(asked).toEqual([]);
    await other.context().close();
  });
});
