// The website assistant in Chromium: an owner asks how to connect a repository and reads an answer
// streamed in, citing the documentation page it came from.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { installedAccount, launch, said, screenshot, signedIn, unique, LANDED, openPage } from "./support/browser";

let browser: Browser;
let owner: Page;
const login = unique("asker");

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login, [`${login}/shop`]);
  owner = await signedIn(browser, login);
  await owner.waitForURL(LANDED);
});

afterAll(async () => {
  await browser?.close();
});

describe("the website assistant", () => {
  it("answers an owner's question, citing the docs page it used, and counts it against today's limits", async () => {
    await openPage(owner, "Assistant");
    await owner.getByRole("heading", { level: 1, name: "Assistant" }).waitFor();
    await said(owner, /Left today: 40 of 40 questions/);
    // The reset names its zone, and the page says a local fake model answers under the local stack.
    await said(owner, /the limits reset in \d+ (hours?|minutes?|seconds?) \(at midnight UTC\)\./);
    await owner
      .getByTestId("local-model")
      .getByText(/A local fake model answers here/)
      .waitFor();
    await owner.getByLabel("Your question").fill("How do I connect my repository?");
    await owner.getByRole("button", { name: "Ask" }).click();

    await owner.locator('section[aria-label="Answer"][aria-busy="false"]').waitFor();
    const answer = owner.getByRole("region", { name: "Answer" });
    await expect(answer.getByText(/^According to \[1\]: /).count()).resolves.toBe(1);
    const cited = answer.getByRole("link", { name: "Getting started: 2. The engine in a workflow" });
    await expect(cited.getAttribute("href")).resolves.toBe(`${inject("e2e").site}/docs/#engine`);
    await said(owner, /Left today: 39 of 40 questions/);
    await screenshot(owner, "assistant");
  });
});
