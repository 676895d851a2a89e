// A model client connects to the organization under `wrangler dev`: the official SDK client in Node
// registers and sends the person to consent; the person, not yet signed in, signs in, comes back to
// the consent page, allows; the client calls tools; then the person disconnects it in the console.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestProvider } from "../support/mcp-provider";
import { base, installedAccount, launch, said, screenshot, signedIn, unique, LANDED, openPage } from "./support/browser";

let browser: Browser;
let page: Page;
const login = unique("mcp-owner");
const provider = new TestProvider("Desk assistant");
const mcpUrl = () => new URL(`${base}/mcp`);
let client: Client;

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login);
  // Signed in once in the console, so the organization the App installation made is theirs.
  const console_ = await signedIn(browser, login);
  await console_.waitForURL(LANDED);
  await console_.context().close();
});

afterAll(async () => {
  await client?.close().catch(() => {});
  await browser?.close();
});

describe("connecting a model client", () => {
  it("sends the person from the client to sign in, then to consent, and hands the client a code", async () => {
    await expect(
      new Client({ name: "e2e", version: "1.0.0" }).connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");

    // Not signed in, the consent address sends the browser to sign in with a way back (opened here as
    // its own first request, so the test's code-host login applies to it).
    const toSignIn = await fetch(authorizationUrl, { redirect: "manual" });
    expect(toSignIn.status).toBe(302);
    const signIn = new URL(toSignIn.headers.get("location")!, base);
    expect(signIn.pathname).toBe("/auth/signin");
    page = await signedIn(browser, login, { startAt: signIn.toString() });
    await page.getByRole("heading", { name: "Connect a model client" }).waitFor();
    await expect(page.locator("#client-name").textContent()).resolves.toBe("Desk assistant");
    await page.getByText("Start a workload run").waitFor();
    await screenshot(page, "mcp-consent");
    // Nothing listens at the client's loopback redirect URI here: the browser setting off for it is the answer.
    const arrival = page.waitForRequest((request) => request.url().startsWith(provider.redirect));
    await page.getByRole("button", { name: "Allow" }).click();
    const answer = new URL((await arrival).url());
    expect(answer.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"));
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await transport.finishAuth(answer.searchParams.get("code")!);
  });

  it("lets the client list the eight tools and call one, under wrangler dev", async () => {
    client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    expect((await client.listTools()).tools).toHaveLength(8);
    const listed = (await client.callTool({ name: "list_environments", arguments: {} })) as { isError?: boolean; structuredContent?: { items: unknown[] } };
    expect(listed.isError).not.toBe(true);
    expect(listed.structuredContent!.items).toEqual([]);
  });

  it("shows the client on the Connected clients page, where disconnecting it stops it at once", async () => {
    await page.goto("/");
    await page.waitForURL(LANDED);
    await openPage(page, "Connected clients");
    await page.getByRole("heading", { level: 1, name: "Connected clients" }).waitFor();
    const row = page.getByRole("row", { name: /Desk assistant/ });
    await row.waitFor();
    await screenshot(page, "mcp-connected-clients");
    await row.getByRole("button", { name: "Disconnect" }).click();
    await page.getByRole("button", { name: "Yes, disconnect" }).click();
    // The row goes with the list's reload.
    await said(page, /You have connected no model client/);
    const refused = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("resource_metadata=");
    await refused.body?.cancel();
  });
});
