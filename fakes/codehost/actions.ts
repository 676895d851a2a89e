// Actions as the App reaches them: workflow files through the contents API, and workflow dispatch,
// which refuses what the real one refuses (unknown workflow, undeclared inputs, no ref) or whatever it
// was told to refuse, and records every dispatch it accepted. Control routes put workflow files in
// place, set refusals and read the record. Workflow files it was started with are in every repository.
import { parse } from "yaml";
import { fields, json, type FakeRequest, type Route } from "./http";
import type { FakeApp } from "./app";

export interface RecordedDispatch {
  repository: string;
  workflow: string;
  ref: string;
  inputs: Record<string, unknown>;
  installation: number;
}

const key = (repository: string, workflow: string) => `${repository.toLowerCase()}:${workflow}`;

export class FakeActions {
  private readonly workflows = new Map<string, string>();
  private readonly refusals = new Map<string, { status: number; message: string; silent?: boolean }>();
  private readonly dispatches: RecordedDispatch[] = [];

  constructor(
    private readonly app: FakeApp,
    /** Workflow files every repository holds unless one of its own is put in place (by file name): `npm start` gives the engine's. */
    private readonly everywhere: Readonly<Record<string, string>> = {},
  ) {}

  private workflow(repository: string, workflow: string): string | undefined {
    return this.workflows.get(key(repository, workflow)) ?? (Object.hasOwn(this.everywhere, workflow) ? this.everywhere[workflow] : undefined);
  }

  private declaredInputs(source: string): string[] {
    const on = (parse(source) as { on?: { workflow_dispatch?: { inputs?: Record<string, unknown> } | null } }).on;
    return Object.keys(on?.workflow_dispatch?.inputs ?? {});
  }

  /** A workflow file (public: the repositories' contents route reads workflow files through it). */
  contents(request: FakeRequest) {
    if (this.app.installationOf(request.bearer) === null) return json(401, { message: "Bad credentials" });
    const [owner, repo, path] = request.params;
    const workflow = /^\.github\/workflows\/([^/]+)$/.exec(path!)?.[1];
    const source = workflow ? this.workflow(`${owner}/${repo}`, workflow) : undefined;
    if (source === undefined) return json(404, { message: "Not Found" });
    return json(200, {
      type: "file",
      encoding: "base64",
      name: workflow,
      path,
      content: Buffer.from(source)
        .toString("base64")
        .replace(/(.{60})/g, "$1\n"),
    });
  }

  private dispatch(request: FakeRequest) {
    const installation = this.app.installationOf(request.bearer);
    if (installation === null) return json(401, { message: "Bad credentials" });
    const [owner, repo, workflow] = request.params as [string, string, string];
    const repository = `${owner}/${repo}`;
    const refusal = this.refusals.get(key(repository, workflow));
    if (refusal?.silent) return { status: 0, silent: true };
    if (refusal) return json(refusal.status, { message: refusal.message });
    const source = this.workflow(repository, workflow);
    if (source === undefined) return json(404, { message: "Not Found" });
    const body = fields(request) as { ref?: unknown; inputs?: Record<string, unknown> };
    if (typeof body.ref !== "string") return json(422, { message: 'Invalid request. "ref" wasn\'t supplied.' });
    const declared = this.declaredInputs(source);
    const unexpected = Object.keys(body.inputs ?? {}).filter((name) => !declared.includes(name));
    if (unexpected.length) return json(422, { message: `Unexpected inputs provided: ${JSON.stringify(unexpected)}` });
    this.dispatches.push({ repository, workflow, ref: body.ref, inputs: body.inputs ?? {}, installation });
    return { status: 204 };
  }

  routes(): Route[] {
    return [
      ["GET", /^\/repos\/([^/]+)\/([^/]+)\/contents\/(.+)$/, (request) => this.contents(request)],
      ["POST", /^\/repos\/([^/]+)\/([^/]+)\/actions\/workflows\/([^/]+)\/dispatches$/, (request) => this.dispatch(request)],
      // { repository, workflow, source }: the workflow file, at every ref.
      [
        "POST",
        /^\/_fake\/workflows$/,
        (request) => {
          const body = fields(request) as { repository: string; workflow: string; source: string };
          this.workflows.set(key(body.repository, body.workflow), body.source);
          return { status: 204 };
        },
      ],
      // { repository, workflow, status, message }: dispatching it answers that; { repository, workflow,
      // silent: true }: dispatching it is never answered (a code host that hangs).
      [
        "POST",
        /^\/_fake\/refusals$/,
        (request) => {
          const body = fields(request) as { repository: string; workflow: string; status: number; message: string; silent?: boolean };
          this.refusals.set(key(body.repository, body.workflow), { status: body.status, message: body.message, silent: body.silent === true });
          return { status: 204 };
        },
      ],
      // ?repository=owner/name: the dispatches accepted for it, oldest first.
      [
        "GET",
        /^\/_fake\/dispatches$/,
        (request) => {
          const repository = (request.url.searchParams.get("repository") ?? "").toLowerCase();
          return json(200, { dispatches: this.dispatches.filter((d) => d.repository.toLowerCase() === repository) });
        },
      ],
    ];
  }
}
