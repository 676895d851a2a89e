// An organization ready for proposals and pull-request checks: the App installed on its repository's
// owner, the repository claimed, a person per role (and a second admin, so an admin's proposal has
// someone else to approve it); and the fake code host's record of what it received.
import { expect } from "vitest";
import type { GitOperation, Received } from "../../fakes/codehost/git";
import { claim, fake, type TestRepository } from "./codehost";
import { workplace, type Workplace } from "./engine-work";
import { rpcClient } from "./rpc";
import { seedToken } from "./seed";
import { seedPerson, seedSession } from "./sessions";

export interface ProposalPlace extends Workplace {
  secondAdmin: string;
  cli: string;
}

export async function proposalPlace(prefix: string): Promise<ProposalPlace> {
  const place = await workplace(prefix);
  const cli = (await seedToken(place.orgId, "cli", ["tokens.manage"])).token;
  const claimed = await claim(cli, place.repository);
  expect(claimed.status).toBe(201);
  await claimed.json();
  const secondAdmin = await seedSession(await seedPerson(`admin2-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: place.orgId, role: "admin" }]));
  return { ...place, secondAdmin, cli };
}

export const clientOf = (session: string) => rpcClient(session);

export async function received(repository: TestRepository): Promise<Received> {
  return (await (await fake(`/_fake/git/received?repository=${encodeURIComponent(repository.full)}`)).json()) as Received;
}

/** Makes `operation` on the repository answer `status` (null: puts it right). */
export async function gitFault(repository: TestRepository, operation: GitOperation, status: number | null, message = "Refused by the fake") {
  const response = await fake("/_fake/git/faults", { json: { repository: repository.full, operation, ...(status === null ? {} : { status, message }) } });
  expect(response.status).toBe(204);
}

export async function putFile(repository: TestRepository, path: string, content: string) {
  const response = await fake("/_fake/git/files", { json: { repository: repository.full, path, content } });
  expect(response.status).toBe(204);
}

/** Opens a pull request at the fake from `headRepository` (a fork, unless it is the repository itself). */
export async function openPull(repository: TestRepository, headRepository: string, headSha?: string): Promise<{ number: number; head_sha: string }> {
  const response = await fake("/_fake/git/pulls", { json: { repository: repository.full, headRepository, ...(headSha ? { headSha } : {}) } });
  expect(response.status).toBe(201);
  return (await response.json()) as { number: number; head_sha: string };
}

/** The TRPC failure's HTTP status and readable code, from a rejected client call. */
export async function failure(promise: Promise<unknown>): Promise<{ httpStatus: number; code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { data, message } = error as { data: { httpStatus: number; code: string }; message: string };
    return { httpStatus: data.httpStatus, code: data.code, message };
  }
  throw new Error("the call succeeded");
}
