// Every HTML page the Worker serves may not be framed and runs scripts only from our origin (or, on a
// page with an inline script, under that response's nonce: test/device); answers that are not pages
// carry no page policy.
import { describe, expect, it } from "vitest";
import { call, callWith } from "../support/http";
import { someAddress } from "../support/signin";

const POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const pages: Array<[string, () => Promise<Response>]> = [
  ["the operator portal (/admin)", () => call("/admin")],
  ["an operator portal page (/admin/organizations)", () => call("/admin/organizations")],
  ["the operator portal when off", () => callWith({ SVC_ADMIN_DATABASE_URL: undefined }, "/admin")],
  ["a failed sign-in (/auth/callback)", () => call("/auth/callback?state=x", { headers: { "x-forwarded-for": someAddress() } })],
  ["the device page before sign-in (/auth/device)", () => call("/auth/device")],
  ["a refused consent request (/auth/mcp/authorize)", () => call("/auth/mcp/authorize?client_id=nobody")],
  ["a console page without a build", () => callWith({ ASSETS: undefined }, "/o/acme/environments")],
];

describe("the headers of every HTML page", () => {
  it.each(pages)("%s: Content-Security-Policy and X-Frame-Options: DENY", async (_name, fetchPage) => {
    const response = await fetchPage();
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toBe(POLICY);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    await response.body?.cancel();
  });

  it("leaves answers that are not pages alone", async () => {
    for (const path of ["/health", "/v1/nothing-here"]) {
      const response = await call(path);
      expect(response.headers.get("content-security-policy")).toBeNull();
      expect(response.headers.get("x-frame-options")).toBeNull();
      await response.body?.cancel();
    }
  });
});
