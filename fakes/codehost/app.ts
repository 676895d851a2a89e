// The App: its key pair (the private key as a PKCS#1 PEM, like the code host hands out), installation
// access tokens for a verified App JWT, and, for the local stack, installing the App on an account,
// which delivers a signed `installation.created` webhook like the real one.
import { generateKeyPairSync } from "node:crypto";
import { importSPKI, jwtVerify } from "jose";
import { signWebhookBody } from "../../worker/codehost/webhook-signature";
import { fields, json, type FakeRequest, type Route } from "./http";
import type { Ids } from "./ids";

export interface AppCredentials {
  id: string;
  privateKeyPem: string;
  webhookSecret: string;
}

export class FakeApp {
  /** Installation access tokens handed out, by value. */
  private readonly tokens = new Map<string, number>();
  /** Installations removed through the API (an organization's deletion), in order. */
  private readonly removed: number[] = [];

  private constructor(
    readonly credentials: AppCredentials,
    private readonly publicKey: Awaited<ReturnType<typeof importSPKI>>,
    private readonly ids: Ids,
    private readonly webhookTarget: string | undefined,
  ) {}

  static async start(ids: Ids, webhookTarget?: string): Promise<FakeApp> {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    const credentials = { id: "424242", privateKeyPem: privateKey, webhookSecret: `fake-webhook-secret-${crypto.randomUUID()}` };
    return new FakeApp(credentials, await importSPKI(publicKey, "RS256"), ids, webhookTarget);
  }

  /** The installation an installation token acts for, or null. */
  installationOf(token: string | null): number | null {
    return token === null ? null : (this.tokens.get(token) ?? null);
  }

  /** The code host's rules for an App JWT: RS256 by the App's key, issued by the App id, at most ten minutes long. */
  private async appVerified(request: FakeRequest): Promise<boolean> {
    if (!request.bearer) return false;
    try {
      const { payload } = await jwtVerify(request.bearer, this.publicKey, {
        algorithms: ["RS256"],
        issuer: this.credentials.id,
        requiredClaims: ["iat", "exp"],
      });
      return payload.exp! - payload.iat! <= 660;
    } catch {
      return false;
    }
  }

  private async accessToken(request: FakeRequest) {
    if (!(await this.appVerified(request))) return json(401, { message: "A JSON web token could not be decoded" });
    const token = `ghs_${crypto.randomUUID().replaceAll("-", "")}`;
    this.tokens.set(token, Number(request.params[0]));
    return json(201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString() });
  }

  /** DELETE /app/installations/{id} as the App: the App leaves the account. */
  private async uninstall(request: FakeRequest) {
    if (!(await this.appVerified(request))) return json(401, { message: "A JSON web token could not be decoded" });
    this.removed.push(Number(request.params[0]));
    return { status: 204 };
  }

  /** Whether installing the App can deliver its webhook (the local stack's fake can; the worker tests' cannot). */
  get canInstall(): boolean {
    return this.webhookTarget !== undefined;
  }

  private async install(request: FakeRequest) {
    const body = fields(request) as { account?: string; repositories?: string[] };
    if (typeof body.account !== "string") return json(400, { message: "account (a login) is required" });
    if (!this.canInstall) return json(409, { message: "this fake was started without a webhook target" });
    return json(201, await this.installOn(body.account, body.repositories ?? []));
  }

  /** Installs the App on `account` and delivers the signed `installation.created` webhook (needs `canInstall`). */
  async installOn(account: string, repositoryNames: string[] = []) {
    const installation = { id: this.ids.installation(), account: { login: account, id: this.ids.account(account), type: "Organization" } };
    const repositories = repositoryNames.map((full_name) => ({ id: this.ids.repository(full_name), full_name, name: full_name.split("/")[1] }));
    const payload = JSON.stringify({ action: "created", installation, repositories, sender: { login: account } });
    const delivered = await fetch(this.webhookTarget!, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "installation",
        "x-github-delivery": crypto.randomUUID(),
        "x-hub-signature-256": await signWebhookBody(this.credentials.webhookSecret, payload),
      },
      body: payload,
    });
    return { installation_id: installation.id, account_id: installation.account.id, delivered: delivered.status };
  }

  routes(): Route[] {
    return [
      ["POST", /^\/app\/installations\/(\d+)\/access_tokens$/, (request) => this.accessToken(request)],
      ["POST", /^\/_fake\/app\/installations$/, (request) => this.install(request)],
      ["DELETE", /^\/app\/installations\/(\d+)$/, (request) => this.uninstall(request)],
      ["GET", /^\/_fake\/app\/removed$/, () => json(200, { removed: this.removed })],
    ];
  }
}
