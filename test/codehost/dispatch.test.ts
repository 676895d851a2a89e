// The workflow dispatch client against the fake code host: as the App, declared inputs only, and
// every attempt recorded with what the code host answered.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { configFor } from "../../worker/config/for-env";
import type { CodehostConfig } from "../../worker/config/types";
import { attemptDispatch, recordDispatch, type DispatchRequest } from "../../worker/codehost/dispatch";
import { inTenant, tenantTransaction } from "../../db/transaction";
import { fake, installApp, newRepository, type TestRepository } from "../support/codehost";
import { acceptedDispatches, putWorkflow, storedDispatch, workplace, type Workplace } from "../support/engine-work";
import { rpcPost } from "../support/rpc";
import { browser } from "../support/sessions";
import { seedOrganization } from "../support/seed";
import { appPool } from "../support/sql";
import { asRole } from "../support/sql";

const PREVIEW = `
name: preview
on:
  push:
  workflow_dispatch:
    inputs:
      env_id:
        description: The environment to bring up
        required: true
      ttl_seconds:
        required: false
jobs:
  up:
    runs-on: ubuntu-latest
    steps: [{ run: echo up }]
`;

const codehost = (): CodehostConfig => configFor(env).codehost;

let repository: TestRepository;
let orgId: string;

beforeAll(async () => {
  repository = newRepository("dispatch");
  ({ orgId } = await installApp(repository));
  await fake("/_fake/workflows", { json: { repository: repository.full, workflow: "preview.yml", source: PREVIEW } });
});

async function dispatch(overrides: Partial<DispatchRequest> = {}, config = codehost()) {
  const pool = appPool();
  try {
    const request = { orgId, repository: repository.full, workflow: "preview.yml", ref: "main", inputs: { env_id: "pr-7" }, ...overrides };
    const attempt = await attemptDispatch(tenantTransaction(pool.connect, request.orgId), config, request);
    return await inTenant(pool.connect, request.orgId, (tx) => recordDispatch(tx, request, attempt));
  } finally {
    await pool.end();
  }
}

const stored = (id: string) => asRole("superuser", async (client) => (await client.query("SELECT * FROM workflow_dispatches WHERE id = $1", [id])).rows[0]);

const dispatchedAtFake = async (full: string) =>
  (
    (await (await fake(`/_fake/dispatches?repository=${encodeURIComponent(full)}`)).json()) as {
      dispatches: Array<{ ref: string; inputs: Record<string, string> }>;
    }
  ).dispatches;

describe("dispatching a workflow as the App", () => {
  it("sends only the inputs the workflow declares, and records the dispatch", async () => {
    const before = (await dispatchedAtFake(repository.full)).length;
    const result = await dispatch({ inputs: { env_id: "pr-7", ttl_seconds: "3600", run_id: "r-1", secret_hint: "x" } });
    expect(result).toMatchObject({
      outcome: "dispatched",
      refusalStatus: null,
      refusal: null,
      inputs: { env_id: "pr-7", ttl_seconds: "3600" },
      droppedInputs: ["run_id", "secret_hint"],
    });
    const atFake = await dispatchedAtFake(repository.full);
    expect(atFake.slice(before)).toEqual([expect.objectContaining({ ref: "main", inputs: { env_id: "pr-7", ttl_seconds: "3600" } })]);
    expect(await stored(result.id)).toMatchObject({
      org_id: orgId,
      repository: repository.full,
      workflow: "preview.yml",
      ref: "main",
      inputs: { env_id: "pr-7", ttl_seconds: "3600" },
      dropped_inputs: ["run_id", "secret_hint"],
      outcome: "dispatched",
      refusal_status: null,
      refusal: null,
    });
  });

  it("records a dispatch the code host refuses, with its status and a sentence", async () => {
    const other = newRepository("refused");
    const { orgId: otherOrg } = await installApp(other);
    await fake("/_fake/workflows", { json: { repository: other.full, workflow: "preview.yml", source: PREVIEW } });
    await fake("/_fake/refusals", {
      json: { repository: other.full, workflow: "preview.yml", status: 422, message: "Workflow does not have 'workflow_dispatch' trigger" },
    });
    const result = await dispatch({ orgId: otherOrg, repository: other.full });
    expect(result).toMatchObject({
      outcome: "refused",
      refusalStatus: 422,
      refusal: expect.stringMatching(/^The code host refused .*HTTP 422: Workflow does not have/),
    });
    expect(await stored(result.id)).toMatchObject({ org_id: otherOrg, outcome: "refused", refusal_status: 422, inputs: { env_id: "pr-7" } });
    expect(await dispatchedAtFake(other.full)).toEqual([]);
  });

  it("records a workflow the repository does not have as refused with the code host's 404", async () => {
    const result = await dispatch({ workflow: "missing.yml" });
    expect(result).toMatchObject({ outcome: "refused", refusalStatus: 404, refusal: expect.stringMatching(/missing\.yml/) });
    expect(await stored(result.id)).toMatchObject({ outcome: "refused", refusal_status: 404 });
  });

  it("records a workflow without a workflow_dispatch trigger as refused, without asking to dispatch it", async () => {
    await fake("/_fake/workflows", { json: { repository: repository.full, workflow: "push-only.yml", source: "on: push\njobs: {}\n" } });
    const result = await dispatch({ workflow: "push-only.yml" });
    expect(result).toMatchObject({ outcome: "refused", refusalStatus: null, refusal: expect.stringMatching(/workflow_dispatch/) });
  });

  it("records a workflow file it cannot read as refused, naming the line, without asking to dispatch it", async () => {
    await fake("/_fake/workflows", {
      json: { repository: repository.full, workflow: "broken.yml", source: "on:\n  workflow_dispatch: [unclosed\njobs: {}\n" },
    });
    const before = (await dispatchedAtFake(repository.full)).length;
    const result = await dispatch({ workflow: "broken.yml" });
    expect(result).toMatchObject({
      outcome: "refused",
      refusalStatus: null,
      refusal: expect.stringMatching(
        /broken\.yml .*could not be read as YAML \(line 3: Flow sequence in block collection must be sufficiently indented and end with a \]\), so it was not started\.$/,
      ),
    });
    expect(await dispatchedAtFake(repository.full)).toHaveLength(before);
  });

  it("records a dispatch for an organization with no installation on the owner as refused", async () => {
    const lonely = (await seedOrganization("no-install")).id;
    const result = await dispatch({ orgId: lonely });
    expect(result).toMatchObject({ outcome: "refused", refusalStatus: null, refusal: expect.stringMatching(/not installed/) });
    expect(await stored(result.id)).toMatchObject({ org_id: lonely, outcome: "refused" });
  });

  it("records an unreachable code host", async () => {
    const result = await dispatch({}, { ...codehost(), apiBase: "http://127.0.0.1:1" });
    expect(result).toMatchObject({ outcome: "unreachable", refusalStatus: null, refusal: expect.stringMatching(/could not be reached/) });
    expect(await stored(result.id)).toMatchObject({ outcome: "unreachable", refusal: result.refusal });
  });

  it("records a code host that answers nothing as unreachable once its 10-second deadline passes, and waits no longer", async () => {
    await fake("/_fake/refusals", { json: { repository: repository.full, workflow: "preview.yml", silent: true } });
    const before = (await dispatchedAtFake(repository.full)).length;
    const started = Date.now();
    const result = await dispatch();
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result).toMatchObject({ outcome: "unreachable", refusalStatus: null, refusal: expect.stringMatching(/could not be reached/) });
    expect(await stored(result.id)).toMatchObject({ outcome: "unreachable" });
    expect(await dispatchedAtFake(repository.full)).toHaveLength(before);
  }, 20_000);
});

describe("a workflow file through the console's dispatch route (environments.create over /rpc)", () => {
  const create = async (place: Workplace, workflow: string) =>
    rpcPost(
      place.sessions.member,
      "environments.create",
      { orgId: place.orgId, repository: place.repository.full, branch: "main", workflow },
      await browser(place.sessions.member).csrf(),
    );

  it("answers a file nested thousands of levels deep as a recorded refusal with its sentence, not a 500", async () => {
    const place = await workplace("dispatch-deep");
    await putWorkflow(place.repository, "deep.yml", `on: workflow_dispatch\njobs:\n  a:\n    steps: ${"[".repeat(5000)}${"]".repeat(5000)}\n`);
    const response = await create(place, "deep.yml");
    expect(response.status).toBe(200);
    const { dispatch } = (
      (await response.json()) as { result: { data: { dispatch: { id: string; outcome: string; refusalStatus: number | null; refusal: string } } } }
    ).result.data;
    const sentence = `The workflow deep.yml in ${place.repository.full} at main could not be read as YAML (line 4: nested more than 64 levels deep), so it was not started.`;
    expect(dispatch).toMatchObject({ outcome: "refused", refusalStatus: null, refusal: sentence });
    expect(await storedDispatch(dispatch.id)).toMatchObject({
      org_id: place.orgId,
      workflow: "deep.yml",
      outcome: "refused",
      refusal_status: null,
      refusal: sentence,
    });
    expect(await acceptedDispatches(place.repository)).toEqual([]);
  });

  it("answers a file over the size limit as a recorded refusal too", async () => {
    const place = await workplace("dispatch-big");
    await putWorkflow(
      place.repository,
      "big.yml",
      `on:\n  workflow_dispatch:\n    inputs:\n      a:\n        description: >\n${"          word word word word word word\n".repeat(25_000)}`,
    );
    const response = await create(place, "big.yml");
    expect(response.status).toBe(200);
    const { dispatch } = ((await response.json()) as { result: { data: { dispatch: { id: string; refusal: string } } } }).result.data;
    expect(await storedDispatch(dispatch.id)).toMatchObject({
      outcome: "refused",
      refusal: expect.stringMatching(/big\.yml .*\(the file is larger than 128 KiB, the most read\), so it was not started\.$/),
    });
  });

  it("dispatches a workflow whose trigger is written with anchors and aliases, with the inputs it declares", async () => {
    const place = await workplace("dispatch-anchors");
    await putWorkflow(
      place.repository,
      "anchored.yml",
      "x-inputs: &inputs\n  command: { required: true }\n  env_id: {}\non:\n  workflow_dispatch:\n    inputs: *inputs\njobs: {}\n",
    );
    const response = await create(place, "anchored.yml");
    const { dispatch } = (
      (await response.json()) as { result: { data: { dispatch: { outcome: string; inputs: Record<string, string>; droppedInputs: string[] } } } }
    ).result.data;
    expect(dispatch).toMatchObject({ outcome: "dispatched", inputs: { command: "up", env_id: expect.any(String) }, droppedInputs: ["branch"] });
    expect(await acceptedDispatches(place.repository)).toEqual([expect.objectContaining({ workflow: "anchored.yml", inputs: dispatch.inputs })]);
  });
});
