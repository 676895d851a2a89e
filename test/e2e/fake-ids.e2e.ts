// `npm start` keeps its database across restarts: the fake code host must never hand out an id an
// earlier start handed out, or a new login on the second start is taken for the first start's person.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it } from "vitest";
import { startFakeCodehost } from "../../fakes/codehost/server";

/** Where installing the App delivers its webhook: here, a listener that takes it and answers 200. */
async function webhookSink() {
  const server = createServer((request, response) => request.resume().on("end", () => response.end("{}")));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** One start of the fake: a new login installs the App on their own account. */
async function startAndInstall(login: string, webhookTarget: string) {
  const fake = await startFakeCodehost({ audience: "http://127.0.0.1", webhookTarget });
  try {
    const post = async (path: string, body: unknown) =>
      (await (await fetch(fake.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as Record<
        string,
        number
      >;
    const user = await post("/_fake/users", { login });
    const installation = await post("/_fake/app/installations", { account: login });
    return { user: user.id!, account: installation.account_id!, installation: installation.installation_id! };
  } finally {
    await fake.close();
  }
}

it("gives two logins on two starts in a row different accounts and installations, so two organizations", async () => {
  const sink = await webhookSink();
  try {
    const first = await startAndInstall("first-login", sink.url);
    const second = await startAndInstall("second-login", sink.url);
    expect(second.user).toBe(second.account); // a person's own account is the account installed on
    expect(new Set([first.user, first.installation, second.user, second.installation]).size).toBe(4);
    expect(second.user).not.toBe(first.user);
    expect(second.installation).not.toBe(first.installation);
  } finally {
    await sink.close();
  }
});
