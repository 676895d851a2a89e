// How the Worker is deployed, as wrangler reads it (README, "Deployment"): placed next to the database
// (Smart Placement), with logs kept and a CPU limit chosen rather than inherited.
import { expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";

const config = unstable_readConfig({ config: new URL("../../wrangler.toml", import.meta.url).pathname });

it("asks for Smart Placement, so the Worker runs near the database it makes several round trips to", () => {
  expect(config.placement).toEqual({ mode: "smart" });
});

it("keeps every request's log line (Workers Logs) and sets the CPU limit of an invocation", () => {
  expect(config.observability).toMatchObject({ enabled: true, head_sampling_rate: 1 });
  expect(config.limits?.cpu_ms).toBe(60_000);
});
