// The Worker builds the engines' routes in an app of their own (worker/engine-app.ts) so an engine's
// first request does not build the console's; the full app serves the same routes. What an engine
// route answers must not depend on which app a request reached.
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/app";
import { appFor } from "../../worker/apps";
import { createEngineApp } from "../../worker/engine-app";
import { MetricsBuffer } from "../../worker/metrics/buffer";
import { declaredRoutes } from "../../worker/openapi/declaration";

const request = (method: string, path: string) => new Request(`http://svc.test${path}`, { method });

describe("the engine app", () => {
  const engine = createEngineApp(new MetricsBuffer());

  it("declares only the engines' own routes, each exactly as the full app declares it", () => {
    const full = declaredRoutes(createApp());
    const own = declaredRoutes(engine.app);
    expect(own.map((route) => `${route.method} ${route.path}`).sort()).toEqual([
      "post /v1/commands/claim",
      "post /v1/commands/{id}/ack",
      "post /v1/events",
      "post /v1/workloads/claim",
      "post /v1/workloads/runs/{runId}/heartbeat",
    ]);
    for (const route of own) expect(full).toContain(route);
  });

  it("serves those paths and no other", () => {
    expect(engine.serves("POST", `/v1/workloads/runs/${crypto.randomUUID()}/heartbeat`)).toBe(true);
    expect(engine.serves("POST", "/v1/events")).toBe(true);
    expect(engine.serves("GET", "/v1/events")).toBe(false);
    expect(engine.serves("POST", "/v1/events/extra")).toBe(false);
    expect(engine.serves("POST", "/v1/tokens")).toBe(false);
  });

  // The file's first calls to appFor: no app is built yet.
  it("is built once for requests that arrive together", async () => {
    const apps = await Promise.all([
      appFor(request("POST", "/v1/events")),
      appFor(request("POST", "/v1/workloads/claim")),
      appFor(request("GET", "/health")),
      appFor(request("GET", "/readyz")),
    ]);
    expect(apps[1]).toBe(apps[0]);
    expect(apps[3]).toBe(apps[2]);
  });

  it("is the one a request for them reaches; every other request reaches the full app", async () => {
    const engineApp = await appFor(request("POST", "/v1/workloads/claim"));
    const fullApp = await appFor(request("GET", "/health"));
    expect(engineApp).not.toBe(fullApp);
    expect(await appFor(request("POST", "/v1/commands/claim"))).toBe(engineApp);
    expect(await appFor(request("POST", "/v1/tokens"))).toBe(fullApp);
    expect(await appFor(request("GET", "/v1/events"))).toBe(fullApp);
  });
});
