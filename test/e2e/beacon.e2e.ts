// The site beacon (site/pages/beacon.js) in a real headless Chromium: a test page served from an
// allowed site origin (./setup/beacon-page.ts), the beacon pointed at a test endpoint (or at the
// control plane itself): no cookie, Global Privacy Control, Do Not Track, crawlers and
// navigator.webdriver honoured, the remembered off switch, flush on page exit, no retry on 400,
// capped jittered backoff on 503.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import type { BeaconPageSettings } from "./setup/beacon-page";

const { chromium: executablePath, beaconPage: site, base } = inject("e2e");
/** A browser as a person runs it (not "HeadlessChrome", which the beacon takes for a crawler). */
const PERSON_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

interface Received {
  events: Array<{ id: string; name: string; session: string; props: Record<string, unknown> }>;
  cookie: string | undefined;
  origin: string | undefined;
}

/** The endpoint the beacon posts to in most tests: answers the statuses queued in `answers`, then 200. */
const endpoint = { received: [] as Received[], answers: [] as number[], server: null as Server | null, url: "" };
let driven: Browser;
let undriven: Browser;

const read = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => resolve(body));
  });

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

/** What the test page (served by the e2e setup, ./setup/beacon-page.ts) points its beacon at. */
async function pageCarries(settings: Partial<BeaconPageSettings>): Promise<void> {
  const response = await fetch(`${site}/__page`, { method: "PUT", body: JSON.stringify(settings) });
  expect(response.status).toBe(204);
}

beforeAll(async () => {
  endpoint.server = createServer(async (request, response) => {
    // A fresh connection for every request: Chromium itself resends a request whose reused connection
    // dropped, which would hide the beacon's own retry.
    const cors = { "access-control-allow-origin": site, vary: "Origin", connection: "close" };
    if (request.method === "OPTIONS") {
      return response.writeHead(204, { ...cors, "access-control-allow-methods": "POST", "access-control-allow-headers": "content-type" }).end();
    }
    const body = JSON.parse(await read(request)) as { events: Received["events"] };
    endpoint.received.push({ events: body.events, cookie: request.headers.cookie, origin: request.headers.origin });
    const status = endpoint.answers.shift() ?? 200;
    if (status === 0) return request.socket.destroy(); // a network failure: the connection drops unanswered
    response.writeHead(status, { ...cors, "content-type": "application/json" }).end(JSON.stringify(status === 200 ? { recording: true } : { error: "test" }));
  });
  endpoint.url = `http://127.0.0.1:${await listen(endpoint.server)}/v1/site/events`;
  driven = await chromium.launch({ executablePath });
  undriven = await chromium.launch({ executablePath, args: ["--disable-blink-features=AutomationControlled"] });
});

afterAll(async () => {
  await driven?.close();
  await undriven?.close();
  await new Promise((resolve) => endpoint.server?.close(resolve));
});

beforeEach(async () => {
  endpoint.received = [];
  endpoint.answers = [];
  await pageCarries({ endpoint: endpoint.url, flushMs: 100, retryBaseMs: 1000 });
});

const person = (options: Parameters<Browser["newContext"]>[0] = {}) => undriven.newContext({ userAgent: PERSON_AGENT, ...options });

type BeaconState = { enabled: boolean; reason: string | null; queue: unknown[]; attempts: number; retryDelays: number[]; dropped: number; sent: number };
const beaconState = (tab: Page) => tab.evaluate<BeaconState>("window.afAnalytics.state()");

/** Waits (without asserting on time) until `done` holds, or fails naming what was awaited. */
async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

const allEvents = () => endpoint.received.flatMap((batch) => batch.events);

describe("the site beacon", () => {
  it("sends a page landed with the referrer, URL and query reduced in the browser, and sets no cookie", async () => {
    const context = await person();
    const tab = await context.newPage();
    await tab.goto(`${site}/Docs/123456/Intro?utm_campaign=Spring%20Launch!&email=someone%40example.com&token=abc`, {
      referer: "https://www.google.com/search?q=private+words",
    });
    await until("the landing reached the endpoint", () => allEvents().length === 1);
    const [landed] = allEvents();
    expect(landed).toMatchObject({ name: "page_landed", props: { channel: "campaign", page: "/docs/:id/intro", campaign: "spring-launch-" } });
    expect(landed!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(landed!.session).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    const sent = JSON.stringify(endpoint.received);
    for (const secret of ["someone", "example.com", "abc", "private", "google", "123456"]) expect(sent).not.toContain(secret);

    // Sign-up and a contact request; the same tab keeps the same session.
    await tab.getByRole("button", { name: "Contact us" }).click();
    await tab.evaluate('window.afAnalytics.track("signup_reached")');
    await until("both reached the endpoint", () => allEvents().length === 3);
    expect(allEvents().map((event) => event.name)).toEqual(["page_landed", "contact_requested", "signup_reached"]);
    expect(new Set(allEvents().map((event) => event.session)).size).toBe(1);

    expect(await context.cookies()).toEqual([]);
    expect(await tab.evaluate("document.cookie")).toBe("");
    expect(endpoint.received.every((batch) => batch.cookie === undefined && batch.origin === site)).toBe(true);
    await context.close();
  });

  it("reduces a search engine's referrer to the search channel, and another site's to referral", async () => {
    const context = await person();
    const tab = await context.newPage();
    await tab.goto(`${site}/pricing`, { referer: "https://duckduckgo.com/?q=x" });
    await tab.goto(`${site}/pricing/`, { referer: "https://blog.example.org/a-post" });
    await until("both landings arrived", () => allEvents().length === 2);
    expect(allEvents().map((event) => [event.props.channel, event.props.page])).toEqual([
      ["search", "/pricing"],
      ["referral", "/pricing"],
    ]);
    await context.close();
  });

  it("keeps the session in tab storage: the same across pages of the tab, new after 30 minutes idle or 24 hours, new in another tab", async () => {
    const context = await person();
    const tab = await context.newPage();
    const landingOn = async (path: string) => {
      const before = allEvents().length;
      await tab.goto(`${site}${path}`);
      await until(`the landing on ${path} arrived`, () => allEvents().length === before + 1);
      return allEvents().at(-1)!.session;
    };
    const age = (field: "last" | "started", minutes: number) =>
      tab.evaluate(
        `(() => { const s = JSON.parse(sessionStorage.getItem("af-analytics-session")); s.${field} = Date.now() - ${minutes * 60_000}; sessionStorage.setItem("af-analytics-session", JSON.stringify(s)); })()`,
      );
    const first = await landingOn("/one");
    expect(await landingOn("/two")).toBe(first);
    await age("last", 29);
    expect(await landingOn("/three")).toBe(first);
    await age("last", 31); // idle for more than 30 minutes
    const second = await landingOn("/four");
    expect(second).not.toBe(first);
    await age("started", 24 * 60 + 1); // active all along, but older than 24 hours
    const third = await landingOn("/five");
    expect(third).not.toBe(second);
    const other = await context.newPage();
    await other.goto(`${site}/other-tab`);
    await until("the other tab's landing arrived", () => allEvents().some((event) => event.props.page === "/other-tab"));
    expect(allEvents().find((event) => event.props.page === "/other-tab")!.session).not.toBe(third);
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it("sends nothing from a driven browser (navigator.webdriver), and sends once the automation flag is off", async () => {
    const context = await driven.newContext({ userAgent: PERSON_AGENT });
    const tab = await context.newPage();
    await tab.goto(`${site}/`);
    expect(await tab.evaluate("navigator.webdriver")).toBe(true);
    expect(await beaconState(tab)).toMatchObject({ enabled: false, reason: "driven_browser", queue: [] });
    await tab.goto(`${site}/elsewhere`);
    await context.close();

    const human = await person();
    const humanTab = await human.newPage();
    await humanTab.goto(`${site}/`);
    expect(await humanTab.evaluate("navigator.webdriver")).toBe(false);
    await until("the person's landing arrived", () => allEvents().length === 1);
    await human.close();
    // Only the person's page: the driven browser's two pages sent nothing, not even on exit.
    expect(allEvents()).toHaveLength(1);
  });

  it("honours Global Privacy Control, Do Not Track and crawlers", async () => {
    const cases: Array<[string, NonNullable<Parameters<Browser["newContext"]>[0]>, string | null]> = [
      ["global_privacy_control", {}, "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true })"],
      ["do_not_track", {}, "Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' })"],
      ["crawler", { userAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" }, null],
      ["crawler", { userAgent: undefined }, null], // HeadlessChrome's own agent
    ];
    for (const [reason, options, init] of cases) {
      const context = await (options.userAgent === undefined && "userAgent" in options ? undriven.newContext() : person(options));
      if (init) await context.addInitScript(init);
      const tab = await context.newPage();
      await tab.goto(`${site}/`);
      expect({ reason, state: await beaconState(tab) }).toMatchObject({ reason, state: { enabled: false, reason } });
      await tab.goto(`${site}/elsewhere`);
      await context.close();
    }
    expect(endpoint.received).toEqual([]);
  });

  it("is switched off by ?af-analytics=off, remembered in this browser, and back on with ?af-analytics=on", async () => {
    const context = await person();
    const tab = await context.newPage();
    await tab.goto(`${site}/?af-analytics=off`);
    expect(await beaconState(tab)).toMatchObject({ enabled: false, reason: "switched_off" });
    await tab.goto(`${site}/later`);
    expect(await beaconState(tab)).toMatchObject({ enabled: false, reason: "switched_off" });
    const another = await context.newPage(); // another tab of the same browser
    await another.goto(`${site}/`);
    expect(await beaconState(another)).toMatchObject({ enabled: false, reason: "switched_off" });
    await another.close();
    expect(endpoint.received).toEqual([]);

    await tab.goto(`${site}/back?af-analytics=on`);
    expect(await beaconState(tab)).toMatchObject({ enabled: true, reason: null });
    await until("the landing arrived", () => allEvents().length === 1);
    expect(allEvents()[0]!.props.page).toBe("/back");
    await tab.goto(`${site}/again`);
    await until("the next landing arrived", () => allEvents().length === 2);
    await context.close();
  });

  it("flushes the queue on page exit", async () => {
    await pageCarries({ flushMs: 600_000 }); // nothing is sent on the timer during this test
    const context = await person();
    const tab = await context.newPage();
    await tab.goto(`${site}/first`);
    await tab.getByRole("button", { name: "Contact us" }).click();
    expect((await beaconState(tab)).queue).toHaveLength(2);
    expect(endpoint.received).toEqual([]);
    await tab.getByRole("link", { name: "Elsewhere" }).click();
    await until("the first page's queue arrived", () => allEvents().some((event) => event.props.page === "/first"));
    expect(
      allEvents()
        .filter((event) => event.props.page === "/first")
        .map((event) => event.name),
    ).toEqual(["page_landed", "contact_requested"]);
    await context.close();
  });

  it("never retries a batch the endpoint refused with 400", async () => {
    endpoint.answers = [400];
    const context = await person();
    const tab = await context.newPage();
    await tab.goto(`${site}/refused`);
    await until("the refused batch was dropped", async () => (await beaconState(tab)).dropped === 1);
    const refusedId = allEvents()[0]!.id;
    await tab.getByRole("button", { name: "Contact us" }).click();
    await until("the next event arrived", () => allEvents().some((event) => event.name === "contact_requested"));
    expect(allEvents().filter((event) => event.id === refusedId)).toHaveLength(1);
    expect(await beaconState(tab)).toMatchObject({ attempts: 0, retryDelays: [], dropped: 1, sent: 1 });
    await context.close();
  });

  it("retries on 503 with capped, jittered exponential backoff, then delivers the same events once", async () => {
    await pageCarries({ retryBaseMs: 10 }); // cap: 64 times the base
    endpoint.answers = [503, 503, 503, 503, 503, 503, 503, 503, 503];
    const context = await person();
    const tab = await context.newPage();
    await tab.goto(`${site}/busy`);
    await until("the events got through", async () => (await beaconState(tab)).sent === 1);
    const ids = endpoint.received.map((batch) => batch.events.map((event) => event.id).join());
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(1); // the same batch each time
    const { retryDelays, attempts } = await beaconState(tab);
    expect(attempts).toBe(0);
    expect(retryDelays).toHaveLength(9);
    retryDelays.forEach((delay, attempt) => {
      const ceiling = Math.min(640, 10 * 2 ** attempt);
      expect({ attempt, delay, within: delay >= ceiling / 2 && delay <= ceiling }).toEqual({ attempt, delay, within: true });
    });
    expect(Math.max(...retryDelays)).toBeLessThanOrEqual(640);
    await context.close();
  });

  it("retries after a network failure (the connection dropped unanswered)", async () => {
    await pageCarries({ retryBaseMs: 10 });
    endpoint.answers = [0, 0];
    const context = await person();
    const tab = await context.newPage();
    await tab.goto(`${site}/flaky`);
    await until("the events got through", async () => (await beaconState(tab)).sent === 1);
    expect(new Set(endpoint.received.map((batch) => batch.events[0]!.id)).size).toBe(1);
    expect(endpoint.received).toHaveLength(3);
    expect((await beaconState(tab)).retryDelays).toHaveLength(2);
    await context.close();
  });

  it("is recorded by the control plane itself, cross-origin from the site's configured origin", async () => {
    const controlPlane = `${base}/v1/site/events`;
    await pageCarries({ endpoint: controlPlane });
    const context = await person();
    const tab = await context.newPage();
    const answered = tab.waitForResponse((response) => response.url() === controlPlane && response.request().method() === "POST");
    await tab.goto(`${site}/from-the-site`);
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.headers()["access-control-allow-origin"]).toBe(site);
    expect(await response.json()).toMatchObject({ recording: true, recorded: 1, refused: 0 });
    expect(await beaconState(tab)).toMatchObject({ sent: 1, dropped: 0 });
    await context.close();
  });
});
