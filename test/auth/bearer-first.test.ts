// 401 before 400 on every route that takes an engine or CLI token: walked from the routes the app
// declares (their `security`), and the model proxy's (which take the token in `x-api-key` too). A
// stranger sending input the route would refuse learns nothing of its schema: the token is refused first.
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../worker/app";
import { declaredRoutes } from "../../worker/openapi/route";
import { newTokenValue } from "../../worker/tokens/secret";
import { call } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";

const tokenRoutes = declaredRoutes(createApp()).filter(
  (route) => route.security?.some((scheme) => scheme === "engineToken" || scheme === "cliToken") || route.path.startsWith("/byok/"),
);

/** Input the route refuses: malformed path parameters, and a body that is not JSON. */
const invalidCall = (route: (typeof tokenRoutes)[number], headers: Record<string, string>) =>
  call(route.path.replace(/\{\w+\}/g, "not-an-id"), {
    method: route.method.toUpperCase(),
    headers: { ...headers, "content-type": "application/json" },
    ...(route.method === "get" ? {} : { body: "{ not json" }),
  });

let liveEngine: string;

beforeAll(async () => {
  liveEngine = (await seedToken((await seedOrganization("bearer-first")).id, "engine")).token;
});

it("walks every engine and CLI token route, the proxy's included", () => {
  const names = tokenRoutes.map((route) => `${route.method.toUpperCase()} ${route.path}`);
  expect(names).toEqual(
    expect.arrayContaining([
      "POST /v1/events",
      "POST /v1/tokens",
      "POST /v1/workloads/claim",
      "POST /v1/commands/{id}/ack",
      "PUT /v1/providers/{provider}",
      "POST /byok/chat-provider/v1/chat/completions",
    ]),
  );
});

describe.each(tokenRoutes.map((route) => ({ name: `${route.method.toUpperCase()} ${route.path}`, route })))("$name", ({ route }) => {
  const cli = route.security?.includes("cliToken") ?? false;
  const strangers: Array<[string, () => Record<string, string>]> = [
    ["no token", () => ({})],
    ["an unknown token", () => ({ authorization: `Bearer ${newTokenValue(cli ? "cli" : "engine")}` })],
    // A live token of a kind the route does not take is no better than none.
    ...(cli ? [["a live engine token", () => ({ authorization: `Bearer ${liveEngine}` })] as [string, () => Record<string, string>]] : []),
    ...(route.path.startsWith("/byok/")
      ? [["an unknown token in x-api-key", () => ({ "x-api-key": newTokenValue("engine") })] as [string, () => Record<string, string>]]
      : []),
  ];

  it.each(strangers)("answers %s with 401 before looking at the input", async (_, headers) => {
    const response = await invalidCall(route, headers());
    expect(response.status).toBe(401);
    expect(response.headers.get("x-svc-error-code")).toBe("unauthenticated");
    expect(await response.json()).toEqual({ error: expect.any(String) });
  });
});

it("still answers a live token's invalid input with 400", async () => {
  const response = await call("/v1/commands/claim", { method: "POST", token: liveEngine, headers: { "content-type": "application/json" }, body: "{ not json" });
  expect(response.status).toBe(400);
});
