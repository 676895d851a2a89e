// The Actions identity-token issuer: RS256 keys generated at start, their JWKS at the issuer's
// well-known address, and a control route minting tokens with chosen claims, or signed wrongly on
// purpose (wrong key, unknown or missing kid, another algorithm, none).
import { exportJWK, generateKeyPair, importJWK, SignJWT, UnsecuredJWT, type JWK, type JWTPayload } from "jose";
import { identityIssuer, jwksUrl } from "../../worker/codehost/issuer";
import { fields, json, type FakeRequest, type Route } from "./http";
import type { Ids } from "./ids";

interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

const TOKEN_VARIANTS = ["wrong_key", "unknown_kid", "no_kid", "rs384", "hs256", "none"] as const;
type Variant = (typeof TOKEN_VARIANTS)[number];

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  return { kid, privateJwk: await exportJWK(privateKey), publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

export class IdentityIssuer {
  readonly issuer: string;
  private constructor(
    apiBase: string,
    private readonly audience: string,
    private readonly ids: Ids,
    /** Published; the first signs by default. */
    private readonly keys: SigningKey[],
    /** Never published: what a forger would sign with. */
    private readonly forger: SigningKey,
  ) {
    this.issuer = identityIssuer(apiBase);
  }

  static async start(apiBase: string, audience: string, ids: Ids): Promise<IdentityIssuer> {
    return new IdentityIssuer(apiBase, audience, ids, [await newKey("fake-key-1")], await newKey("forger"));
  }

  private jwks() {
    return { keys: this.keys.map((key) => key.publicJwk) };
  }

  /** GitHub's claims for a push to `main`, with `overrides` laid over them (null removes a claim). */
  private claims(overrides: Record<string, unknown>): JWTPayload {
    const repository = typeof overrides.repository === "string" ? overrides.repository : "octo-org/octo-repo";
    const owner = repository.split("/")[0]!;
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      aud: this.audience,
      sub: `repo:${repository}:ref:refs/heads/main`,
      jti: crypto.randomUUID(),
      iat: now,
      nbf: now - 5,
      exp: now + 300,
      repository,
      repository_id: String(this.ids.repository(repository)),
      repository_owner: owner,
      // Only when the test names none: asking would make a fresh account hold the owner's login.
      repository_owner_id: "repository_owner_id" in overrides ? null : String(this.ids.account(owner)),
      ref: "refs/heads/main",
      ref_type: "branch",
      sha: "0".repeat(40),
      workflow: "preview",
      event_name: "push",
      run_id: String(now),
      run_attempt: "1",
      actor: owner,
      ...overrides,
    };
    return Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== null)) as JWTPayload;
  }

  private async sign(payload: JWTPayload, kid: string | undefined, variant: Variant | undefined): Promise<string> {
    if (variant === "none") return new UnsecuredJWT(payload).encode();
    const current = this.keys.find((key) => key.kid === kid) ?? this.keys[0]!;
    if (variant === "hs256") {
      return new SignJWT(payload).setProtectedHeader({ alg: "HS256", kid: current.kid }).sign(new TextEncoder().encode("a shared secret"));
    }
    const alg = variant === "rs384" ? "RS384" : "RS256";
    const key = variant === "wrong_key" || variant === "unknown_kid" ? this.forger : current;
    const header =
      variant === "no_kid" ? { alg, typ: "JWT" } : { alg, typ: "JWT", kid: variant === "unknown_kid" ? `unknown-${crypto.randomUUID()}` : current.kid };
    return new SignJWT(payload).setProtectedHeader(header).sign(await importJWK({ ...key.privateJwk, alg }, alg));
  }

  private async mint(request: FakeRequest) {
    const body = fields(request) as { claims?: Record<string, unknown>; kid?: string; variant?: Variant };
    if (body.variant !== undefined && !TOKEN_VARIANTS.includes(body.variant)) return json(400, { message: `variant is one of ${TOKEN_VARIANTS.join(", ")}` });
    return json(201, { token: await this.sign(this.claims(body.claims ?? {}), body.kid, body.variant) });
  }

  /** Bytes of padding streamed, by the key-set address's `tag`: how far a client read before it stopped. */
  private readonly streamed = new Map<string, number>();

  private async *paddedStream(padBytes: number, tag: string) {
    yield `${JSON.stringify(this.jwks()).slice(0, -1)},"padding":"`;
    const chunk = "x".repeat(16 * 1024);
    for (let sent = 0; sent < padBytes; sent += chunk.length) {
      // A turn of the event loop per chunk, so a client that went away is noticed.
      await new Promise((resolve) => setImmediate(resolve));
      const part = chunk.slice(0, Math.min(chunk.length, padBytes - sent));
      this.streamed.set(tag, (this.streamed.get(tag) ?? 0) + part.length);
      yield part;
    }
    yield '"}';
  }

  routes(): Route[] {
    const jwksPath = new URL(jwksUrl(this.issuer)).pathname;
    return [
      ["GET", new RegExp(`^${jwksPath.replace(/[.]/g, "\\.")}$`), () => json(200, this.jwks())],
      ["POST", /^\/_fake\/oidc\/token$/, (request) => this.mint(request)],
      // Publishes a further key (rotation); tokens name it with `kid`.
      [
        "POST",
        /^\/_fake\/oidc\/keys$/,
        async () => {
          const key = await newKey(`fake-key-${this.keys.length + 1}`);
          this.keys.push(key);
          return json(201, { kid: key.kid });
        },
      ],
      ["GET", /^\/_fake\/jwks\/streamed$/, (request) => json(200, { bytes: this.streamed.get(request.url.searchParams.get("tag") ?? "") ?? 0 })],
      // The same key set, slowly or padded, for testing how keys are fetched.
      [
        "GET",
        /^\/_fake\/jwks$/,
        async (request) => {
          const delay = Number(request.url.searchParams.get("delay_ms") ?? 0);
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          const pad = Number(request.url.searchParams.get("pad_bytes") ?? 0);
          // stream_pad_bytes: the padding streamed in chunks with no declared length, for as long as the client reads.
          const streamed = Number(request.url.searchParams.get("stream_pad_bytes") ?? 0);
          const tag = request.url.searchParams.get("tag") ?? "";
          if (streamed > 0) return { status: 200, headers: { "content-type": "application/json" }, stream: this.paddedStream(streamed, tag) };
          return json(200, { ...this.jwks(), ...(pad > 0 ? { padding: "x".repeat(pad) } : {}) });
        },
      ],
    ];
  }
}
