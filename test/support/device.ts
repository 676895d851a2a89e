// The CLI's device sign-in as the CLI does it (RFC 8628 form bodies), and a person approving it.
import { expect } from "vitest";
import { call } from "./http";
import type { browser } from "./sessions";
import { asRole } from "./sql";

export const uniqueAddress = () => `10.${[1, 2, 3].map(() => Math.floor(Math.random() * 250)).join(".")}`;

export async function startFlow(scope: string, clientId = "svc-cli") {
  const response = await call("/auth/device/code", {
    method: "POST",
    body: new URLSearchParams({ client_id: clientId, scope }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": uniqueAddress() },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    expires_in: number;
    interval: number;
  };
}

export const poll = async (deviceCode: string) => {
  const response = await call("/auth/device/token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: deviceCode }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  return { status: response.status, body: (await response.json()) as { error?: string; access_token?: string; scope?: string } };
};

/** Lets the next poll through the interval. */
export const waitInterval = () => asRole("superuser", (client) => client.query("UPDATE device_authorizations SET last_polled_at = now() - interval '1 hour'"));

/** The whole sign-in: the CLI asks for `scope`, the signed-in person approves it for `orgId`, the CLI gets its token. */
export async function deviceSignIn(person: ReturnType<typeof browser>, orgId: string, scope: string): Promise<string> {
  const flow = await startFlow(scope);
  const approved = await person.post("/auth/device/approve", { userCode: flow.user_code, orgId, approve: true, codeConfirmed: true }, await person.csrf());
  expect(approved.status).toBe(200);
  await waitInterval();
  const { body } = await poll(flow.device_code);
  expect(body.access_token).toMatch(/^svc_cli_/);
  return body.access_token!;
}
