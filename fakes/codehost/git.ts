// Repositories as the App reaches them: the repository (its ids, owner and default branch), git refs, file contents
// (read and committed), pull requests and check runs. Every repository exists on first use with a
// `main` branch and no files. It records what it received, can be told to refuse an operation, and
// can be given pull requests (a fork's) and files through its control routes.
import { randomBytes } from "node:crypto";
import type { FakeApp } from "./app";
import { fields, json, type FakeRequest, type FakeResponse, type Route } from "./http";
import type { Ids } from "./ids";

interface File {
  content: string;
  sha: string;
}

interface Pull {
  number: number;
  title: string;
  body: string;
  state: "open";
  html_url: string;
  head: { ref: string; sha: string; repo: { id: number; full_name: string } | null };
  base: { ref: string; repo: { id: number; full_name: string } };
}

interface Repo {
  full: string;
  id: number;
  defaultBranch: string;
  branches: Map<string, { sha: string; files: Map<string, File> }>;
  pulls: Pull[];
  checkRuns: number;
}

export const GIT_OPERATIONS = ["repository", "refs", "contents", "commit", "pulls", "check-runs"] as const;
export type GitOperation = (typeof GIT_OPERATIONS)[number];

export interface Received {
  refs: Array<{ repository: string; ref: string; sha: string }>;
  commits: Array<{ repository: string; branch: string; path: string; content: string; message: string; sha: string }>;
  pulls: Array<{ repository: string; number: number; title: string; body: string; head: string; base: string }>;
  checkRuns: Array<{
    repository: string;
    id: number;
    name: string;
    head_sha: string;
    status: string;
    conclusion: string;
    external_id: string;
    output: unknown;
    installation: number;
  }>;
}

const newSha = () => randomBytes(20).toString("hex");
const PAGE = "https://codehost.example";

export class FakeGit {
  private readonly repos = new Map<string, Repo>();
  private readonly faults = new Map<string, { status: number; message: string }>();
  private readonly received: Received = { refs: [], commits: [], pulls: [], checkRuns: [] };
  private nextCheckRun = 1 + Math.floor(Math.random() * 1e9);

  constructor(
    private readonly app: FakeApp,
    private readonly ids: Ids,
    /** Where a file this store does not hold is read instead (the Actions workflow files). */
    private readonly otherContents: (request: FakeRequest) => FakeResponse,
  ) {}

  private repo(owner: string, name: string): Repo {
    const full = `${owner}/${name}`;
    let repo = this.repos.get(full.toLowerCase());
    if (!repo) {
      repo = {
        full,
        id: this.ids.repository(full),
        defaultBranch: "main",
        branches: new Map([["main", { sha: newSha(), files: new Map() }]]),
        pulls: [],
        checkRuns: 0,
      };
      this.repos.set(full.toLowerCase(), repo);
    }
    return repo;
  }

  /** Checks the installation token and any refusal set for the operation; the repository, or the answer to give. */
  private enter(request: FakeRequest, operation: GitOperation): { repo: Repo; installation: number } | FakeResponse {
    const installation = this.app.installationOf(request.bearer);
    if (installation === null) return json(401, { message: "Bad credentials" });
    const repo = this.repo(request.params[0]!, request.params[1]!);
    const fault = this.faults.get(`${repo.full.toLowerCase()}:${operation}`);
    if (fault) return json(fault.status, { message: fault.message });
    return { repo, installation };
  }

  private pullJson(repo: Repo, pull: Pull) {
    return { ...pull, url: `${PAGE}/repos/${repo.full}/pulls/${pull.number}` };
  }

  routes(): Route[] {
    const R = "^/repos/([^/]+)/([^/]+)";
    const on =
      (operation: GitOperation, handle: (entered: { repo: Repo; installation: number }, request: FakeRequest) => FakeResponse) =>
      (request: FakeRequest): FakeResponse => {
        const entered = this.enter(request, operation);
        return "repo" in entered ? handle(entered, request) : entered;
      };
    return [
      [
        "GET",
        new RegExp(`${R}$`),
        on("repository", ({ repo }) =>
          json(200, {
            id: repo.id,
            full_name: repo.full,
            owner: { id: this.ids.account(repo.full.split("/")[0]!), login: repo.full.split("/")[0] },
            default_branch: repo.defaultBranch,
          }),
        ),
      ],
      [
        "GET",
        new RegExp(`${R}/git/ref/heads/(.+)$`),
        on("refs", ({ repo }, request) => {
          const branch = repo.branches.get(request.params[2]!);
          return branch
            ? json(200, { ref: `refs/heads/${request.params[2]}`, object: { type: "commit", sha: branch.sha } })
            : json(404, { message: "Not Found" });
        }),
      ],
      [
        "POST",
        new RegExp(`${R}/git/refs$`),
        on("refs", ({ repo }, request) => {
          const body = fields(request) as { ref?: string; sha?: string };
          const name = /^refs\/heads\/(.+)$/.exec(body.ref ?? "")?.[1];
          const from = [...repo.branches.values()].find((branch) => branch.sha === body.sha);
          if (!name || !from) return json(422, { message: "Invalid request." });
          if (repo.branches.has(name)) return json(422, { message: "Reference already exists" });
          repo.branches.set(name, { sha: from.sha, files: new Map(from.files) });
          this.received.refs.push({ repository: repo.full, ref: body.ref!, sha: from.sha });
          return json(201, { ref: body.ref, object: { type: "commit", sha: from.sha } });
        }),
      ],
      [
        "GET",
        new RegExp(`${R}/contents/(.+)$`),
        (request) => {
          const installation = this.app.installationOf(request.bearer);
          const repo = installation === null ? undefined : this.repos.get(`${request.params[0]}/${request.params[1]}`.toLowerCase());
          const branch = repo?.branches.get(request.url.searchParams.get("ref") ?? repo.defaultBranch);
          const file = branch?.files.get(request.params[2]!);
          if (!repo || !file) return this.otherContents(request);
          const fault = this.faults.get(`${repo.full.toLowerCase()}:contents`);
          if (fault) return json(fault.status, { message: fault.message });
          return json(200, {
            type: "file",
            encoding: "base64",
            path: request.params[2],
            sha: file.sha,
            content: Buffer.from(file.content)
              .toString("base64")
              .replace(/(.{60})/g, "$1\n"),
          });
        },
      ],
      [
        "PUT",
        new RegExp(`${R}/contents/(.+)$`),
        on("commit", ({ repo }, request) => {
          const body = fields(request) as { message?: string; content?: string; branch?: string; sha?: string };
          const path = request.params[2]!;
          const branchName = body.branch ?? repo.defaultBranch;
          const branch = repo.branches.get(branchName);
          if (!branch || typeof body.content !== "string" || typeof body.message !== "string") return json(422, { message: "Invalid request." });
          const existing = branch.files.get(path);
          if (existing && body.sha === undefined) return json(422, { message: 'Invalid request. "sha" wasn\'t supplied.' });
          if (existing && body.sha !== existing.sha) return json(409, { message: `${path} does not match ${body.sha}` });
          const content = Buffer.from(body.content, "base64").toString("utf8");
          const file = { content, sha: newSha() };
          branch.files.set(path, file);
          branch.sha = newSha();
          this.received.commits.push({ repository: repo.full, branch: branchName, path, content, message: body.message, sha: branch.sha });
          return json(existing ? 200 : 201, { content: { path, sha: file.sha }, commit: { sha: branch.sha, message: body.message } });
        }),
      ],
      [
        "POST",
        new RegExp(`${R}/pulls$`),
        on("pulls", ({ repo }, request) => {
          const body = fields(request) as { title?: string; head?: string; base?: string; body?: string };
          const head = repo.branches.get(body.head ?? "");
          if (!head || !repo.branches.has(body.base ?? "") || typeof body.title !== "string") return json(422, { message: "Validation Failed" });
          if (repo.pulls.some((pull) => pull.head.ref === body.head && pull.head.repo?.id === repo.id)) {
            return json(422, { message: `A pull request already exists for ${repo.full.split("/")[0]}:${body.head}.` });
          }
          const pull: Pull = {
            number: repo.pulls.length + 1,
            title: body.title,
            body: body.body ?? "",
            state: "open",
            html_url: `${PAGE}/${repo.full}/pull/${repo.pulls.length + 1}`,
            head: { ref: body.head!, sha: head.sha, repo: { id: repo.id, full_name: repo.full } },
            base: { ref: body.base!, repo: { id: repo.id, full_name: repo.full } },
          };
          repo.pulls.push(pull);
          this.received.pulls.push({
            repository: repo.full,
            number: pull.number,
            title: pull.title,
            body: pull.body,
            head: pull.head.ref,
            base: pull.base.ref,
          });
          return json(201, this.pullJson(repo, pull));
        }),
      ],
      [
        "GET",
        new RegExp(`${R}/pulls$`),
        on("pulls", ({ repo }, request) => {
          const head = request.url.searchParams.get("head");
          return json(
            200,
            repo.pulls
              .filter((pull) => !head || `${pull.head.repo?.full_name.split("/")[0]}:${pull.head.ref}` === head)
              .map((pull) => this.pullJson(repo, pull)),
          );
        }),
      ],
      [
        "GET",
        new RegExp(`${R}/pulls/(\\d+)$`),
        on("pulls", ({ repo }, request) => {
          const pull = repo.pulls.find((candidate) => candidate.number === Number(request.params[2]));
          return pull ? json(200, this.pullJson(repo, pull)) : json(404, { message: "Not Found" });
        }),
      ],
      [
        "POST",
        new RegExp(`${R}/check-runs$`),
        on("check-runs", ({ repo, installation }, request) => {
          const body = fields(request) as { name?: string; head_sha?: string; status?: string; conclusion?: string; external_id?: string; output?: unknown };
          if (typeof body.name !== "string" || typeof body.head_sha !== "string" || !/^[0-9a-f]{40}$/.test(body.head_sha))
            return json(422, { message: "Validation Failed" });
          const id = this.nextCheckRun++;
          this.received.checkRuns.push({
            repository: repo.full,
            id,
            name: body.name,
            head_sha: body.head_sha,
            status: body.status ?? "queued",
            conclusion: body.conclusion ?? "",
            external_id: body.external_id ?? "",
            output: body.output ?? null,
            installation,
          });
          return json(201, {
            id,
            head_sha: body.head_sha,
            name: body.name,
            status: body.status,
            conclusion: body.conclusion,
            html_url: `${PAGE}/${repo.full}/runs/${id}`,
          });
        }),
      ],
      // { repository, operation, status, message }: that operation on the repository answers so until
      // cleared ({ repository, operation } without a status).
      [
        "POST",
        /^\/_fake\/git\/faults$/,
        (request) => {
          const body = fields(request) as { repository?: string; operation?: GitOperation; status?: number; message?: string };
          if (typeof body.repository !== "string" || !GIT_OPERATIONS.includes(body.operation as GitOperation)) {
            return json(400, { message: `repository and operation (${GIT_OPERATIONS.join(", ")}) are required` });
          }
          const key = `${body.repository.toLowerCase()}:${body.operation}`;
          if (typeof body.status === "number") this.faults.set(key, { status: body.status, message: body.message ?? "Refused by the fake" });
          else this.faults.delete(key);
          return { status: 204 };
        },
      ],
      // { repository, id, ownerId }: the repository's and its owner's numeric ids (a test's own).
      [
        "POST",
        /^\/_fake\/git\/repositories$/,
        (request) => {
          const body = fields(request) as { repository?: string; id?: number; ownerId?: number };
          if (typeof body.repository !== "string" || !Number.isSafeInteger(body.id) || !Number.isSafeInteger(body.ownerId)) {
            return json(400, { message: "repository, id and ownerId are required" });
          }
          const [owner, name] = body.repository.split("/") as [string, string];
          if (!this.ids.adopt(owner, body.ownerId!)) return json(409, { message: `${owner} is held by another account` });
          this.ids.adoptRepository(body.repository, body.id!);
          this.repo(owner, name).id = body.id!;
          return { status: 204 };
        },
      ],
      // { repository, path, content, branch? }: a file in place, as if committed long ago.
      [
        "POST",
        /^\/_fake\/git\/files$/,
        (request) => {
          const body = fields(request) as { repository: string; path: string; content: string; branch?: string };
          const [owner, name] = body.repository.split("/") as [string, string];
          const repo = this.repo(owner, name);
          const branch = repo.branches.get(body.branch ?? repo.defaultBranch);
          if (!branch) return json(404, { message: "no such branch" });
          branch.files.set(body.path, { content: body.content, sha: newSha() });
          return { status: 204 };
        },
      ],
      // { repository, headRepository, headSha?, headRef? }: a pull request opened from another
      // repository (a fork) or the same one; answers its number and head commit.
      [
        "POST",
        /^\/_fake\/git\/pulls$/,
        (request) => {
          const body = fields(request) as { repository: string; headRepository?: string; headSha?: string; headRef?: string };
          const [owner, name] = body.repository.split("/") as [string, string];
          const repo = this.repo(owner, name);
          const headRepository = body.headRepository ?? repo.full;
          const number = repo.pulls.length + 1;
          const pull: Pull = {
            number,
            title: `Pull request ${number}`,
            body: "",
            state: "open",
            html_url: `${PAGE}/${repo.full}/pull/${number}`,
            head: { ref: body.headRef ?? "patch", sha: body.headSha ?? newSha(), repo: { id: this.ids.repository(headRepository), full_name: headRepository } },
            base: { ref: repo.defaultBranch, repo: { id: repo.id, full_name: repo.full } },
          };
          repo.pulls.push(pull);
          return json(201, { number, head_sha: pull.head.sha });
        },
      ],
      // ?repository=owner/name: what the fake received for it (refs, commits, pulls, check runs), oldest first.
      [
        "GET",
        /^\/_fake\/git\/received$/,
        (request) => {
          const repository = (request.url.searchParams.get("repository") ?? "").toLowerCase();
          const mine = <T extends { repository: string }>(list: T[]) => list.filter((item) => item.repository.toLowerCase() === repository);
          return json(200, {
            refs: mine(this.received.refs),
            commits: mine(this.received.commits),
            pulls: mine(this.received.pulls),
            checkRuns: mine(this.received.checkRuns),
          });
        },
      ],
    ];
  }
}
