// Opening an approved proposal as a pull request, as the code-host App: a branch from the default
// branch's head, one commit of the file (the masking file as it is; the project configuration with its
// egress block replaced), and the pull request. Every step is safe to repeat, so a refused attempt can
// be retried: an existing branch is reused, the file is updated in place, an open pull request for the
// branch is found again. Whatever the code host answers is returned as an outcome, never thrown.
import type { Transaction } from "../../db/transaction";
import type { CodehostConfig } from "../config/types";
import { appAccessTo } from "../codehost";
import { callCodehost, CodehostUnreachable, describeAnswer, type ApiAnswer } from "../codehost";
import { ownerOf } from "../http/repository-name";
import { withEgressBlock } from "./egress";
import { FILE_OF, type ProposalKind } from "./store";

export interface PullRequestWork {
  id: string;
  kind: ProposalKind;
  repository: string;
  summary: string;
  content: string;
  loosens: boolean;
  loosened: string[];
  proposedBy: string;
  approvedBy: string;
}

export type PullRequestOutcome =
  | { state: "opened"; branch: string; number: number; url: string | null }
  | { state: "refused"; branch: string | null; status: number | null; refusal: string };

const segment = (value: string) => value.split("/").map(encodeURIComponent).join("/");

const encodeBase64 = (value: string) => {
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
};
const decodeBase64 = (base64: string) => new TextDecoder().decode(Uint8Array.from(atob(base64.replace(/\s+/g, "")), (char) => char.charCodeAt(0)));

export const branchFor = (work: Pick<PullRequestWork, "id" | "kind">) => `svc/${work.kind}-${work.id.slice(0, 8)}`;

class Refused extends Error {
  override readonly name = "Refused";
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

const field = <T>(answer: ApiAnswer, name: string): T | undefined => (answer.body as Record<string, unknown> | null)?.[name] as T | undefined;

function describeChange(work: PullRequestWork): string {
  const what = work.kind === "masking" ? "masking rules" : "egress policy";
  const lines = [
    `${work.summary}`,
    "",
    `This pull request carries a change to the organization's ${what} that ${work.proposedBy} proposed and ${work.approvedBy} approved in the console.`,
  ];
  if (work.loosens) lines.push("", `**This change loosens egress**: it allows ${work.loosened.join(", ")}, which was denied before.`);
  return lines.join("\n");
}

async function open(transaction: Transaction, codehost: CodehostConfig, work: PullRequestWork, branch: string): Promise<PullRequestOutcome> {
  const access = await appAccessTo(transaction, codehost, ownerOf(work.repository));
  if (!access.ok) throw new Refused(access.status, access.reason);
  const api = (method: "GET" | "POST" | "PUT", path: string, json?: unknown) =>
    callCodehost(codehost.apiBase, method, `/repos/${segment(work.repository)}${path}`, access.token, json);

  const repository = await api("GET", "");
  const base = field<string>(repository, "default_branch");
  if (repository.status !== 200 || typeof base !== "string")
    throw new Refused(repository.status, `The repository ${work.repository} could not be read (${describeAnswer(repository)}).`);

  const head = await api("GET", `/git/ref/heads/${segment(base)}`);
  const baseSha = field<{ sha?: unknown }>(head, "object")?.sha;
  if (head.status !== 200 || typeof baseSha !== "string")
    throw new Refused(head.status, `The head of ${base} in ${work.repository} could not be read (${describeAnswer(head)}).`);

  const created = await api("POST", "/git/refs", { ref: `refs/heads/${branch}`, sha: baseSha });
  // 422: the branch exists, from an earlier attempt; it is used as it is.
  if (created.status !== 201 && created.status !== 422)
    throw new Refused(created.status, `The branch ${branch} could not be created in ${work.repository} (${describeAnswer(created)}).`);

  const path = FILE_OF[work.kind];
  const existing = await api("GET", `/contents/${segment(path)}?ref=${encodeURIComponent(branch)}`);
  if (existing.status !== 200 && existing.status !== 404)
    throw new Refused(existing.status, `${path} could not be read from ${work.repository} (${describeAnswer(existing)}).`);
  const existingSha = existing.status === 200 ? field<string>(existing, "sha") : undefined;
  const existingText = existing.status === 200 && typeof field(existing, "content") === "string" ? decodeBase64(field<string>(existing, "content")!) : "";
  const text = work.kind === "masking" ? work.content : withEgressBlock(existingText, work.content);

  if (existing.status !== 200 || existingText !== text) {
    const commit = await api("PUT", `/contents/${segment(path)}`, {
      message: `${work.kind === "masking" ? "Masking rules" : "Egress policy"}: ${work.summary}`,
      content: encodeBase64(text),
      branch,
      ...(existingSha ? { sha: existingSha } : {}),
    });
    if (commit.status !== 200 && commit.status !== 201)
      throw new Refused(commit.status, `${path} could not be committed to ${branch} in ${work.repository} (${describeAnswer(commit)}).`);
  }

  const title = `${work.kind === "masking" ? "Masking rules" : "Egress policy"}${work.loosens ? " (loosens egress)" : ""}: ${work.summary}`;
  const pull = await api("POST", "/pulls", { title, head: branch, base, body: describeChange(work) });
  if (pull.status === 201) return { state: "opened", branch, number: field<number>(pull, "number")!, url: field<string>(pull, "html_url") ?? null };
  if (pull.status === 422) {
    // Opened by an earlier attempt whose answer was lost: find it.
    const listed = await api("GET", `/pulls?state=open&head=${encodeURIComponent(`${ownerOf(work.repository)}:${branch}`)}`);
    const found = Array.isArray(listed.body) ? (listed.body as Array<{ number?: unknown; html_url?: unknown }>)[0] : undefined;
    if (listed.status === 200 && typeof found?.number === "number") {
      return { state: "opened", branch, number: found.number, url: typeof found.html_url === "string" ? found.html_url : null };
    }
  }
  throw new Refused(pull.status, `The pull request could not be opened in ${work.repository} (${describeAnswer(pull)}).`);
}

/** With no transaction open; `transaction` acts as the proposal's organization (the App's installation is found through it). */
export async function openPullRequest(transaction: Transaction, codehost: CodehostConfig, work: PullRequestWork): Promise<PullRequestOutcome> {
  const branch = branchFor(work);
  try {
    return await open(transaction, codehost, work, branch);
  } catch (error) {
    if (error instanceof Refused) return { state: "refused", branch, status: error.status, refusal: error.message };
    if (error instanceof CodehostUnreachable) {
      return { state: "refused", branch, status: null, refusal: `The code host could not be reached (${error.message}), so the pull request was not opened.` };
    }
    throw error;
  }
}
