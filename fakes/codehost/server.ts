// A fake code host on a real HTTP port, reached by the Worker only through SVC_CODEHOST_API_BASE: the
// OAuth web flow and user APIs, App installation tokens, Actions workflow files and dispatch, and the
// Actions identity-token issuer. Control routes under /_fake/ let tests (and a person, locally) mint
// identity tokens, set up workflows and refusals, make a page of a list fail, and read what was
// dispatched.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeAccounts } from "./accounts";
import { FakeActions } from "./actions";
import { FakeApp, type AppCredentials } from "./app";
import { FakeGit } from "./git";
import { serve } from "./http";
import { Ids } from "./ids";
import { IdentityIssuer } from "./identity";
import { FakePaging } from "./paging";

export interface FakeCodehost {
  /** The API base: what SVC_CODEHOST_API_BASE names. */
  url: string;
  issuer: string;
  app: AppCredentials;
  close: () => Promise<void>;
}

export interface FakeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** The audience identity tokens get unless a test names another. */
  audience: string;
  /** Where installing the App through /_fake/app/installations delivers its webhook. */
  webhookTarget?: string;
  /** Workflow files (by name under .github/workflows) every repository holds unless one of its own is put in place. */
  workflows?: Record<string, string>;
}

export async function startFakeCodehost(options: FakeOptions): Promise<FakeCodehost> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ids = new Ids();
  const app = await FakeApp.start(ids, options.webhookTarget);
  const identity = await IdentityIssuer.start(url, options.audience, ids);
  // How often each address (path and query) was asked for: tests count key-set fetches with it.
  const requests = new Map<string, number>();
  const paging = new FakePaging();
  const actions = new FakeActions(app, options.workflows);
  const routes = [
    ...identity.routes(),
    ...app.routes(),
    // Before Actions: a repository's contents route answers workflow files through Actions.
    ...new FakeGit(app, ids, (request) => actions.contents(request)).routes(),
    ...actions.routes(),
    ...new FakeAccounts(ids, app, paging).routes(),
    ...paging.routes(),
    ["GET", /^\/_fake\/requests$/, (request) => ({ status: 200, json: { count: requests.get(request.url.searchParams.get("address") ?? "") ?? 0 } })],
  ] satisfies Parameters<typeof serve>[0];
  server.on("request", (incoming, outgoing) => {
    serve(routes, incoming, outgoing, (address) =>
      requests.set(address.pathname + address.search, (requests.get(address.pathname + address.search) ?? 0) + 1),
    ).catch((error: unknown) => {
      outgoing.writeHead(500, { "content-type": "application/json" });
      outgoing.end(JSON.stringify({ message: error instanceof Error ? error.message : "fake failed" }));
    });
  });
  return {
    url,
    issuer: identity.issuer,
    app: app.credentials,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
