// The configuration the Worker runs with under test: the real local database and fixed test values.
export interface TestDatabase {
  /** Logins that inherit their role, for raw SQL acting as it (local/provision.ts). */
  app: string;
  operator: string;
  migration: string;
  maintenance: string;
  /** The re-seal role (svc_reseal): every organization's sealed provider keys, nothing else. */
  reseal: string;
  /** The deployment logins the Worker is given: members that do not inherit their role, so every transaction takes it (db/roles.ts). */
  logins: { app: string; operator: string; maintenance: string; reseal: string };
  superuser: string;
  bridge: string;
  /** The migration role's URL for a database no migration has touched. */
  emptyMigration: string;
}

/** The public origin under test: also the audience the fake code host mints identity tokens for. */
export const APP_BASE_URL = "http://127.0.0.1:8080";

/** The fake code host (fakes/codehost) and the App it knows. */
export interface TestCodehost {
  url: string;
  app: { id: string; privateKeyPem: string; webhookSecret: string };
}

export function testBindings(database: TestDatabase, codehost: TestCodehost): Record<string, string> {
  return {
    SVC_DATABASE_URL: database.logins.app,
    SVC_ADMIN_DATABASE_URL: database.logins.operator,
    SVC_MIGRATION_DATABASE_URL: database.migration,
    SVC_MAINTENANCE_DATABASE_URL: database.logins.maintenance,
    SVC_DATABASE_WS_PROXY: database.bridge,
    SVC_CODEHOST_CLIENT_ID: "test-client-id",
    SVC_CODEHOST_CLIENT_SECRET: "test-client-secret",
    SVC_CODEHOST_REDIRECT_URI: "http://127.0.0.1:8080/auth/callback",
    SVC_APP_BASE_URL: APP_BASE_URL,
    SVC_CODEHOST_API_BASE: codehost.url,
    SVC_CODEHOST_APP_ID: codehost.app.id,
    SVC_CODEHOST_APP_PRIVATE_KEY: codehost.app.privateKeyPem,
    SVC_CODEHOST_APP_WEBHOOK_SECRET: codehost.app.webhookSecret,
    SVC_EE_SSO_KEY: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
    SVC_VERSION: "test-version",
    SVC_COMMIT: "test-commit",
    SVC_INSECURE_COOKIES: "1",
  };
}
