// The database roles: application (required), operator, migration, maintenance, re-seal.
import { isPooledEndpoint, POOLED_MIGRATION_URL } from "../../db/migrate";
import { readConnectionString, readOnWithOne, readRequired, readWholeNumber, type EnvReader } from "./readers";
import { LOCATION_HINTS, type DatabaseConfig, type LocationHint } from "./types";

const MAX_POOL = 100;

export function readDatabase(r: EnvReader): DatabaseConfig {
  const migrate = readOnWithOne(r, "SVC_MIGRATE");
  const migrationUrl = readConnectionString(r, "SVC_MIGRATION_DATABASE_URL");
  if (migrationUrl && isPooledEndpoint(migrationUrl)) r.refuse("SVC_MIGRATION_DATABASE_URL", POOLED_MIGRATION_URL);
  if (migrate && r.text("SVC_MIGRATION_DATABASE_URL") === undefined) {
    r.refuseUnset("SVC_MIGRATION_DATABASE_URL", " when SVC_MIGRATE is 1 (the application role cannot run migrations)");
  }
  const maintenanceUrl = readConnectionString(r, "SVC_MAINTENANCE_DATABASE_URL") ?? migrationUrl;
  if (r.text("SVC_MAINTENANCE_DATABASE_URL") === undefined && r.text("SVC_MIGRATION_DATABASE_URL") === undefined) {
    r.warn("Neither SVC_MAINTENANCE_DATABASE_URL nor SVC_MIGRATION_DATABASE_URL is set: event partitions are not kept ahead.");
  }
  return {
    url: readRequired(r, "SVC_DATABASE_URL", readConnectionString),
    poolMax: readWholeNumber(r, "SVC_POOL_MAX", 1, MAX_POOL) ?? 10,
    adminUrl: readConnectionString(r, "SVC_ADMIN_DATABASE_URL"),
    adminPoolMax: readWholeNumber(r, "SVC_ADMIN_POOL_MAX", 1, MAX_POOL) ?? 4,
    migrate,
    migrationUrl,
    maintenanceUrl,
    resealUrl: readConnectionString(r, "SVC_RESEAL_DATABASE_URL"),
    wsProxy: readWsProxy(r),
    objectLocationHint: readLocationHint(r),
  };
}

function readLocationHint(r: EnvReader): LocationHint | null {
  const text = r.text("SVC_OBJECT_LOCATION_HINT");
  if (text === undefined) return null;
  const hint = LOCATION_HINTS.find((known) => known === text);
  if (!hint) r.refuse("SVC_OBJECT_LOCATION_HINT", `SVC_OBJECT_LOCATION_HINT must be one of ${LOCATION_HINTS.join(", ")}.`);
  return hint ?? null;
}

function readWsProxy(r: EnvReader): string | null {
  const text = r.text("SVC_DATABASE_WS_PROXY");
  if (text === undefined) return null;
  if (!/^[A-Za-z0-9.-]+:\d{1,5}$/.test(text)) {
    r.refuse("SVC_DATABASE_WS_PROXY", "SVC_DATABASE_WS_PROXY must be `host:port` of a WebSocket-to-TCP bridge.");
    return null;
  }
  return text;
}
