// What every app of the Worker has before its routes: metrics, per-request services, migrations on
// start, how declared routes check credentials, and the spec's error answers.
import { HonoBase as Hono } from "hono/hono-base";
import { TrieRouter } from "hono/router/trie-router";
import { CREDENTIALS } from "./credentials";
import type { AppEnv } from "./http/context";
import { notFound, onError } from "./http/failure";
import { migrateOnStart } from "./http/migrate-on-start";
import { services } from "./http/services";
import type { MetricsBuffer } from "./metrics/buffer";
import { observe } from "./metrics/observe";

export function appBase(metrics: MetricsBuffer): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ router: new TrieRouter() });
  // First: it sees every answer, the error handler's too.
  app.use(observe(metrics));
  app.use(services);
  app.use(migrateOnStart);
  app.use(async (c, next) => {
    c.set("credentials", CREDENTIALS);
    await next();
  });
  app.onError(onError);
  app.notFound(notFound);
  return app;
}
