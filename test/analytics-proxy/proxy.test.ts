// /px/*: the analytics proxy. Mounted only with SVC_ANALYTICS_VENDOR_REGION (us|eu); only the
// allowlisted capture paths are forwarded; an upstream redirect is refused; a preflight echoes exactly
// one allowed origin; nothing of the browser but the body and its content-type goes upstream.
import { describe, expect, inject, it } from "vitest";
import { parseConfig } from "../../worker/config/parse";
import { envWith } from "../config/fixtures";
import { callWith } from "../support/http";
import { captureLogs } from "../support/logs";
import { statusAndCode } from "../support/refusals";

const SITE = "https://site.example";
const vendor = () => inject("modelProviders").analytics;
const PROXY_ON = () => ({ SVC_ANALYTICS_VENDOR_REGION: "eu", SVC_ANALYTICS_VENDOR_API_BASE: vendor(), SVC_SITE_ORIGIN: SITE });

const marker = () => `px-${crypto.randomUUID().slice(0, 8)}`;

async function arrived(mark: string) {
  return (await (await fetch(`${vendor()}/_fake/proxied?marker=${mark}`)).json()) as Array<{
    path: string;
    query: string;
    headers: Record<string, string>;
    body: string;
  }>;
}

function send(path: string, body: string, headers: Record<string, string> = {}, env: Record<string, unknown> = PROXY_ON()) {
  return callWith(env, path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

describe("the analytics proxy /px", () => {
  it.each(["text/html; charset=utf-8", "application/javascript", "image/svg+xml", "TEXT/HTML"])(
    "never serves the vendor's %s as such from this origin: octet-stream, nosniff",
    async (type) => {
      const response = await send(`/px/e/?fake_type=${encodeURIComponent(type)}`, JSON.stringify({ mark: marker() }), { origin: SITE });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/octet-stream");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    },
  );

  it.each(["application/json", "text/plain; charset=utf-8"])("passes the vendor's %s through, with nosniff", async (type) => {
    const response = await send(`/px/batch/?fake_type=${encodeURIComponent(type)}`, JSON.stringify({ mark: marker() }), { origin: SITE });
    expect(response.headers.get("content-type")).toBe(type);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it.each(["/px/e/", "/px/e", "/px/batch/", "/px/decide/", "/px/i/v0/e/"])("forwards %s to the vendor with its body and query", async (path) => {
    const mark = marker();
    const body = JSON.stringify({ api_key: "phc_site", event: "$pageview", properties: { mark } });
    const response = await send(`${path}?ver=1.2.3&compression=none`, body, { origin: SITE });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(SITE);
    const [forwarded] = await arrived(mark);
    expect(forwarded!.path).toBe(path.replace(/^\/px/, "").replace(/([^/])$/, "$1/"));
    expect(forwarded!.query).toBe("?ver=1.2.3&compression=none");
    expect(forwarded!.body).toBe(body);
  });

  it("forwards nothing of the browser but the content type: no cookie, authorization or visitor address", async () => {
    const mark = marker();
    const response = await send("/px/e/", JSON.stringify({ mark }), {
      origin: SITE,
      cookie: "svc_session=secret-session; other=1",
      authorization: "Bearer secret-token",
      "x-forwarded-for": "203.0.113.7",
      "cf-connecting-ip": "203.0.113.7",
      "x-real-ip": "203.0.113.7",
      "user-agent": "Mozilla/5.0 visitor",
      referer: "https://site.example/pricing",
      "content-type": "text/plain;charset=UTF-8",
    });
    expect(response.status).toBe(200);
    const [forwarded] = await arrived(mark);
    const sent = JSON.stringify(forwarded!.headers);
    expect(forwarded!.headers["content-type"]).toBe("text/plain;charset=UTF-8");
    for (const name of ["cookie", "authorization", "x-forwarded-for", "cf-connecting-ip", "x-real-ip", "referer", "origin"]) {
      expect(forwarded!.headers[name], name).toBeUndefined();
    }
    expect(sent).not.toContain("203.0.113.7");
    expect(sent).not.toContain("secret");
    expect(sent).not.toContain("visitor");
    // Nor does anything of the vendor's come back but the body and its type.
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("x-vendor-trace")).toBeNull();
    expect(await response.json()).toEqual({ status: 1 });
  });

  it.each(["/px/", "/px/static/array.js", "/px/api/projects/", "/px/e/extra", "/px/_fake/proxied", "/px/../e/", "/px/E/"])(
    "answers 404 for %s, off the allowlist, and forwards nothing",
    async (path) => {
      const mark = marker();
      const response = await send(path, JSON.stringify({ mark }), { origin: SITE });
      expect(statusAndCode(response)).toEqual([404, "not_found"]);
      await response.arrayBuffer();
      expect(await arrived(mark)).toEqual([]);
    },
  );

  it("answers 404 to a GET of a forwarded path (only POST is forwarded)", async () => {
    const response = await callWith(PROXY_ON(), "/px/e/", { method: "GET" });
    expect(statusAndCode(response)).toEqual([404, "not_found"]);
  });

  it("refuses an upstream redirect with 502 instead of following it", async () => {
    // The fake redirects the one path with a 302, the other with a 307.
    for (const [path, upstream, status] of [
      ["/px/e/?fake_redirect=1", "/e/", 302],
      ["/px/i/v0/e/?fake_redirect=1", "/i/v0/e/", 307],
    ] as const) {
      let response!: Response;
      // The refusal is logged for the operator, with the vendor's path and status, read here rather than printed.
      const logs = await captureLogs(async () => {
        response = await send(path, JSON.stringify({ mark: marker() }), { origin: SITE });
      });
      expect(logs.event("px.upstream_redirect_refused")).toMatchObject({ level: "warn", path: upstream, status });
      expect(response.status).toBe(502);
      expect(response.headers.get("x-svc-error-code")).toBe("analytics_upstream_failed");
      expect(response.headers.get("location")).toBeNull();
      expect(((await response.json()) as { error: string }).error).toMatch(/redirect/);
    }
  });

  it("answers a preflight on a forwarded path with exactly the one allowed origin", async () => {
    const env = { ...PROXY_ON(), SVC_SITE_ORIGIN: `${SITE},http://localhost:8788` };
    const response = await callWith(env, "/px/e/", {
      method: "OPTIONS",
      headers: { origin: "http://localhost:8788", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:8788");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    const foreign = await callWith(env, "/px/e/", { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
    expect(statusAndCode(foreign)).toEqual([403, "origin_not_allowed"]);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    await foreign.arrayBuffer();
    const offList = await callWith(env, "/px/nope/", { method: "OPTIONS", headers: { origin: SITE, "access-control-request-method": "POST" } });
    expect(statusAndCode(offList)).toEqual([404, "not_found"]);
  });

  it("refuses a post from a foreign origin and forwards nothing", async () => {
    const mark = marker();
    const response = await send("/px/e/", JSON.stringify({ mark }), { origin: "https://evil.example" });
    expect(statusAndCode(response)).toEqual([403, "origin_not_allowed"]);
    expect(await arrived(mark)).toEqual([]);
  });

  it("is not mounted while SVC_ANALYTICS_VENDOR_REGION is unset: every /px path answers 404", async () => {
    const env = { SVC_ANALYTICS_VENDOR_REGION: undefined, SVC_ANALYTICS_VENDOR_API_BASE: vendor(), SVC_SITE_ORIGIN: SITE };
    for (const [method, path] of [
      ["POST", "/px/e/"],
      ["OPTIONS", "/px/e/"],
      ["GET", "/px/"],
    ] as const) {
      const mark = marker();
      const response = await callWith(env, path, {
        method,
        headers: { origin: SITE, "content-type": "application/json" },
        ...(method === "POST" ? { body: JSON.stringify({ mark }) } : {}),
      });
      expect(statusAndCode(response)).toEqual([404, "not_found"]);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      expect(await arrived(mark)).toEqual([]);
    }
  });

  it("takes its upstream from a closed set of two regions", () => {
    expect(parseConfig(envWith({ SVC_ANALYTICS_VENDOR_REGION: "us" }))).toMatchObject({
      ok: true,
      config: { analytics: { vendorApiBase: "https://us.i.posthog.com" } },
    });
    expect(parseConfig(envWith({ SVC_ANALYTICS_VENDOR_REGION: "eu" }))).toMatchObject({
      ok: true,
      config: { analytics: { vendorApiBase: "https://eu.i.posthog.com" } },
    });
    for (const region of ["ap", "US", "https://evil.example", "eu,us"]) {
      const parsed = parseConfig(envWith({ SVC_ANALYTICS_VENDOR_REGION: region }));
      expect(parsed.ok, region).toBe(false);
    }
  });

  it("refuses a body over the limit with 413 before forwarding it", async () => {
    const response = await send("/px/batch/", "x".repeat(1024 * 1024 + 1), { origin: SITE });
    expect(response.status).toBe(413);
  });
});
