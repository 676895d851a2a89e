// People in a real Chromium against the local stack: each person a browser context of their own,
// signed in through the fake code host exactly as a person clicks through it.
import { mkdirSync } from "node:fs";
import { randomInt } from "node:crypto";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { inject } from "vitest";

export const { base, codehost } = inject("e2e");

const SCREENSHOTS = new URL("../screenshots/", import.meta.url).pathname;

export const launch = (): Promise<Browser> => chromium.launch({ executablePath: inject("e2e").chromium });

/** A name no other test (or earlier run) uses. */
export const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

export async function fake(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(codehost + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`the fake code host answered ${response.status} to ${path}`);
  return (await response.json()) as Record<string, unknown>;
}

/** A code-host account with the App installed on it: the organization its login owns once signed in. */
export async function installedAccount(login: string, repositories: string[] = []): Promise<void> {
  await fake("/_fake/users", { login, email: `${login}@example.test` });
  await fake("/_fake/app/installations", { account: login, repositories });
}

/** A new browser context of a person of their own, not signed in; its page is blank. */
export async function personPage(browser: Browser): Promise<Page> {
  // Each person browses from an address of their own, as people do: sign-in is rate limited per
  // client address (X-Forwarded-For, one trusted hop), and one shared bucket would make the suite's
  // many sign-ins refuse each other.
  const address = `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 }, extraHTTPHeaders: { "x-forwarded-for": address } });
  return context.newPage();
}

/**
 * A new browser context signed in as `login` (made on the fake when missing); the page is the console.
 * It names the login on the fake's authorize address, which then signs in at once (the fake's sign-in
 * page, where a person picks or creates the account, is test/e2e/owner.e2e.ts's quick start).
 */
export async function signedIn(browser: Browser, login: string, options: { startAt?: string } = {}): Promise<Page> {
  const page = await personPage(browser);
  // The fake code host signs in the login its authorize address names: add it to the redirect there.
  await page.route(
    (url) => url.origin === base && url.pathname === "/auth/signin",
    async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const location = new URL(response.headers().location!);
      location.searchParams.set("login", login);
      await route.fulfill({ response, headers: { ...response.headers(), location: location.toString() } });
    },
  );
  if (options.startAt) await page.goto(options.startAt);
  else await signInFrom(page);
  return page;
}

/** Follows the console's sign-in link through the code host and back. */
export async function signInFrom(page: Page, linkName = "Sign in with the code host"): Promise<void> {
  if (!page.url().startsWith(base)) await page.goto("/");
  const back = page.waitForResponse((response) => new URL(response.url()).pathname === "/auth/callback");
  await page.getByRole("link", { name: linkName }).click();
  if ((await back).status() !== 302) throw new Error(`signing in answered ${(await back).status()}`);
  await page.waitForURL((url) => url.origin === base && !url.pathname.startsWith("/auth/"));
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Waits for the sentence an action reports (role=status) or a refusal (role=alert). */
/** The widths every console page is tried at: a desktop's and a phone's. */
const WIDTHS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

/** Runs `check` at a desktop's width, then a phone's, then puts the page back at the tests' usual size. */
export async function atBothWidths(page: Page, check: (viewport: (typeof WIDTHS)[number]) => Promise<void>): Promise<void> {
  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    await check(viewport);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** How wide the document is: wider than the window, and the page scrolls sideways. */
export const pageWidth = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth");

export const said = (page: Page, text: string | RegExp) => page.getByText(text).first().waitFor();

/** Where a signed-in person lands in an organization: getting started until an engine has reported, then the overview. */
export const LANDED = /\/o\/[^/]+\/(getting-started|overview)$/;

/** The organization's address (`/o/<slug>`) of a page that landed there. */
export const orgPathOf = (page: { url(): string }) => new URL(page.url()).pathname.replace(/\/(getting-started|overview)$/, "");

/** The sidebar's entries, and the Settings sub-navigation shown on a page under Settings. */
export const sidebar = (page: Page) => page.getByRole("navigation", { name: "Sections" });
export const settingsNav = (page: Page) => page.getByRole("navigation", { name: "Settings" });

/** Whether `title` is a page under the sidebar's Settings entry (console/src/pages.ts). */
const UNDER_SETTINGS = new Set([
  "General",
  "Members",
  "Sessions",
  "Connected clients",
  "Tokens",
  "Repository claims",
  "Model provider keys",
  "Billing",
  "Audit log",
  "Leaving",
]);

/** Opens a page as a person does: from the sidebar, or through Settings and its sub-navigation. */
export async function openPage(page: Page, title: string): Promise<void> {
  // On a phone the sections are behind the header's Menu button.
  const menu = page.getByRole("button", { name: "Menu", exact: true });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) === "false") await menu.click();
  if (!UNDER_SETTINGS.has(title)) return sidebar(page).getByRole("link", { name: title, exact: true }).click();
  await sidebar(page).getByRole("link", { name: "Settings", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
  await settingsNav(page).getByRole("link", { name: title, exact: true }).click();
}

/**
 * Opens a page (openPage) whose title is `title`, and waits until its data has arrived and nothing
 * reloads: a form filled while the page still loads may be drawn again empty.
 */
export async function openSettled(page: Page, title: string): Promise<void> {
  await openPage(page, title);
  await page.getByRole("heading", { level: 1, name: title }).waitFor();
  await page.getByText("Loading...").first().waitFor({ state: "detached" });
  await page.locator("[aria-busy=true]").first().waitFor({ state: "detached" });
}

/** How a checkbox's label lays it out ("row": beside its sentence), as computed in the page. */
export const checkboxLayout = (checkbox: Locator) =>
  checkbox.evaluate(
    (box) =>
      (globalThis as unknown as { getComputedStyle: (element: unknown) => { flexDirection: string } }).getComputedStyle(
        (box as { parentElement: unknown }).parentElement,
      ).flexDirection,
  );
