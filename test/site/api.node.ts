// The site host's Worker (site/worker/index.ts), its fetch handler called in Node: GET /api lists no endpoints; any other
// path under /api is 404 JSON with a stable code, a message and a resolution. Every other address is
// left to Workers Assets (the pages and 404 page are proved under wrangler dev in test/e2e/site.e2e.ts).
import { describe, expect, it } from "vitest";
import site, { answerApi, type SiteError } from "../../site/worker/index";

const SITE = "https://site.example";
/** The Workers Assets binding stands in for the files; these tests never reach it. */
const NO_ASSETS = { ASSETS: { fetch: () => Promise.reject(new Error("only /api is answered by the Worker")) } as unknown as Fetcher };

const get = (path: string, method = "GET") => site.fetch(new Request(SITE + path, { method }), NO_ASSETS);

describe("the site Worker's /api", () => {
  it("answers GET /api with an empty endpoints list", async () => {
    const response = await get("/api");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ endpoints: [] });
  });

  it.each(["/api/", "/api/v1", "/api/leads", "/api/openapi.json", "/api/a/b/c?x=1"])("answers %s with 404 code, message and resolution", async (path) => {
    const response = await get(path);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await response.json()) as SiteError;
    expect(Object.keys(body).sort()).toEqual(["code", "message", "resolution"]);
    expect(body.code).toBe("not_found");
    expect(body.message).toMatch(/\S/);
    expect(body.resolution).toContain("GET /api");
  });

  it("answers another method on /api with 405 JSON naming GET", async () => {
    const response = await get("/api", "POST");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
    expect(((await response.json()) as SiteError).code).toBe("method_not_allowed");
  });

  it("leaves every other address to the assets", () => {
    for (const path of ["/", "/pricing", "/docs/api", "/openapi.json", "/apiary", "/x/api"]) expect(answerApi(new Request(SITE + path)), path).toBeNull();
  });
});
