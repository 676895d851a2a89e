// The CLI's device sign-in as a person approves it in Chromium: the link opens a page naming the
// client and each scope, approving needs the person's own tick, and the page's script runs under its
// nonce (no policy violation). The token's issuance is test/device's.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, checkboxLayout, installedAccount, launch, said, signedIn, unique } from "./support/browser";

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

describe("the device-approval page", () => {
  it("shows the client and scopes, and approves only once the person ticks that the code matches", async () => {
    const login = unique("device");
    await installedAccount(login);
    const page = await signedIn(browser, login);
    await page.getByRole("heading", { level: 1, name: "Getting started" }).waitFor();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });

    // The client names itself: markup in that name is shown as text, never made an element.
    const clientId = `svc-cli <img src=x onerror="document.title='injected'">`;
    const started = (await (await fetch(`${base}/auth/device/code`, form({ client_id: clientId, scope: "environments.view" }))).json()) as {
      device_code: string;
      user_code: string;
      verification_uri_complete: string;
    };
    await page.goto(started.verification_uri_complete);
    await expect(page.locator("#client").textContent()).resolves.toBe(clientId);
    await expect(page.locator("img").count()).resolves.toBe(0);
    await page.getByText("see environments, their runs and preview addresses").waitFor();
    await expect(page.locator("#code").textContent()).resolves.toBe(started.user_code);

    // Approve without the tick: the browser keeps the form, nothing is approved.
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.locator("#result").textContent()).resolves.toBe("");
    const pending = await fetch(
      `${base}/auth/device/token`,
      form({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: started.device_code }),
    );
    expect(((await pending.json()) as { error: string }).error).toBe("authorization_pending");

    const confirm = page.getByLabel(`The code ${started.user_code} matches the one my terminal shows`);
    expect(await checkboxLayout(confirm)).toBe("row");
    await confirm.check();
    await page.getByRole("button", { name: "Approve" }).click();
    await said(page, "Approved: return to the command line.");
    expect(violations).toEqual([]);
  });
});
