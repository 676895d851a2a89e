// Where identity tokens must come from and whom they must be for.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { identityAudience, identityIssuer, jwksUrl } from "../../worker/codehost/issuer";
import { configFor } from "../../worker/config/for-env";

describe("the issuer", () => {
  it("is the public Actions issuer for the public API, and that host's /_services/token for any other", () => {
    expect(identityIssuer("https://api.github.com")).toBe("https://token.actions.githubusercontent.com");
    expect(identityIssuer("https://api.github.com/")).toBe("https://token.actions.githubusercontent.com");
    expect(identityIssuer("https://ghe.example.com/api/v3")).toBe("https://ghe.example.com/_services/token");
    expect(jwksUrl(identityIssuer("http://127.0.0.1:9999/"))).toBe("http://127.0.0.1:9999/_services/token/.well-known/jwks");
  });
});

describe("the audience", () => {
  const config = configFor(env);
  const request = "http://worker.internal/v1/auth/codehost-oidc";

  it("is the public origin without a trailing slash, else the enterprise base, else the request's origin", () => {
    expect(identityAudience({ ...config, server: { ...config.server, appBaseUrl: "https://cp.example.com/" } }, request)).toBe("https://cp.example.com");
    const enterprise = { ...config.enterprise!, baseUrl: "https://sso.example.com" };
    expect(identityAudience({ ...config, server: { ...config.server, appBaseUrl: null }, enterprise }, request)).toBe("https://sso.example.com");
    expect(identityAudience({ ...config, server: { ...config.server, appBaseUrl: null }, enterprise: null }, request)).toBe("http://worker.internal");
  });
});
