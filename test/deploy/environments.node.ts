// The deploy environments of wrangler.toml (docs/deploy.md): wrangler hands an environment the top
// level's settings but not its bindings, so each repeats them, and this holds the copies equal; the
// top level, which `npm start` and the tests run, sets no variable; production answers on its own
// domain only; and the site has every environment the control plane has, since one deploy does both.
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { environmentsOf, ROOT } from "../../deploy/variables";

const read = (config: string, env?: string) => unstable_readConfig({ config: ROOT + config, env }, { hideWarnings: true });
const buckets = (config: ReturnType<typeof read>, field: "binding" | "bucket_name") =>
  config.r2_buckets.map((bucket: Record<typeof field, unknown>) => bucket[field]);
const top = read("wrangler.toml");

describe("wrangler.toml's deploy environments", () => {
  it("leave the top level without variables: npm start, the tests and the benchmarks set their own", () => {
    expect(top.vars).toEqual({});
  });

  for (const env of environmentsOf("wrangler.toml")) {
    it(`[env.${env}] binds the top level's Durable Objects and buckets, and inherits its migrations, crons, limits and assets`, () => {
      const config = read("wrangler.toml", env);
      expect(config.durable_objects.bindings).toEqual(top.durable_objects.bindings);
      expect(buckets(config, "binding")).toEqual(buckets(top, "binding"));
      expect(config.migrations).toEqual(top.migrations);
      expect(config.triggers).toEqual(top.triggers);
      expect(config.limits).toEqual(top.limits);
      expect(config.assets).toEqual(top.assets);
      expect(config.observability).toEqual(top.observability);
    });
  }

  it("deploys production to its own domain only, with production's buckets", () => {
    const production = read("wrangler.toml", "production");
    expect(production.workers_dev).toBe(false);
    expect(production.routes).toEqual([{ pattern: new URL(String(production.vars.SVC_APP_BASE_URL)).host, custom_domain: true }]);
    expect(buckets(production, "bucket_name")).toEqual(["svc-event-archive", "svc-exports"]);
  });

  it("keeps previews off production's buckets", () => {
    const preview = read("wrangler.toml", "preview");
    expect(buckets(preview, "bucket_name")).toEqual(["svc-event-archive-preview", "svc-exports-preview"]);
  });

  it("has the site's environments for each of its own, the site's production on the domain SVC_SITE_ORIGIN names", () => {
    expect(environmentsOf("site/wrangler.toml")).toEqual(environmentsOf("wrangler.toml"));
    const site = read("site/wrangler.toml", "production");
    expect(site.routes).toEqual([{ pattern: new URL(String(read("wrangler.toml", "production").vars.SVC_SITE_ORIGIN)).host, custom_domain: true }]);
  });
});
