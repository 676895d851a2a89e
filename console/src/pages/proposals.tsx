// Proposals: the masking file and egress block in force, proposing a change to either, deciding
// someone else's proposal (never one's own), each approved proposal's pull request (opened, or
// refused with the code host's words and tried again), and fork pull-request commits waiting for a
// maintainer to approve that exact commit.
import { ActionButton, ActionForm, field } from "../components/actions";
import { Empty, Show } from "../components/feedback";
import { type Paged, ShowMore, usePaged } from "../components/paged";
import { Table } from "../components/table";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";
import { Status } from "../components/status-badge";
import { useEffect, useRef } from "preact/hooks";
import { useLocation } from "../router";

type Proposal = Outputs["masking"]["proposals"]["items"][number];
type Kind = "masking" | "egress";

const ROUTER = { masking: "masking", egress: "network" } as const;
const TITLE: Record<Kind, string> = { masking: "Masking file", egress: "Egress policy" };

/** `host`, or `host:443,80`, one a line. */
function parseRules(text: string | undefined): Array<{ host: string; ports: number[] }> {
  return (text ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [host, ports] = line.split(":");
      return { host: host!.trim(), ports: ports ? ports.split(",").map((port) => Number(port.trim())) : [] };
    });
}

const rulesText = (rules: Array<{ host: string; ports: number[] }> = []) =>
  rules.map((rule) => rule.host + (rule.ports.length ? `:${rule.ports.join(",")}` : "")).join("\n");

/** The rules' text with `line` added at the end, unless it is there already. */
const withLine = (text: string, line: string | null) => (!line || text.split("\n").includes(line) ? text : text ? `${text}\n${line}` : line);

export function ProposalsPage({ view }: { view: OrgView }) {
  const { org, can } = view;
  // Arriving from a run's "Why it failed": the denied destination to propose allowing, and its run.
  const asked = useLocation().searchParams;
  const allowing = asked.get("allow");
  const fromRun = asked.get("run");
  const masking = useLoad(() => rpc.masking.current.query({ orgId: org.id }), [org.id]);
  const egress = useLoad(() => rpc.network.current.query({ orgId: org.id }), [org.id]);
  const proposeForm = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (allowing && egress.data?.policy) proposeForm.current?.scrollIntoView({ block: "start" });
  }, [allowing, egress.data?.policy]);
  const maskingProposals = usePaged((cursor) => rpc.masking.proposals.query({ orgId: org.id, cursor }), [org.id]);
  const egressProposals = usePaged((cursor) => rpc.network.proposals.query({ orgId: org.id, cursor }), [org.id]);
  const reload = () => {
    masking.reload();
    egress.reload();
    maskingProposals.reload();
    egressProposals.reload();
  };
  return (
    <>
      <h1>Proposals</h1>
      <p>
        Changes to the masking rules and the egress policy are proposed here, approved by someone other than their author, and opened as a pull request in the
        organization's claimed repository by the code-host App.
      </p>
      <h2>In force</h2>
      <Show loaded={masking}>
        {(file) => (
          <section aria-label="Masking file in force">
            <h3>
              Masking file <code>{file.path}</code>
            </h3>
            {file.updatedAt ? (
              <pre class="file" data-testid="masking-file">
                {file.content}
              </pre>
            ) : (
              <Empty>No masking file approved yet.</Empty>
            )}
          </section>
        )}
      </Show>
      <Show loaded={egress}>
        {(file) => (
          <section aria-label="Egress block in force">
            <h3>
              Egress block of <code>{file.path}</code>
            </h3>
            <pre class="file" data-testid="egress-block">
              {file.content}
            </pre>
            {!file.updatedAt && <p class="muted">Nothing approved yet: nothing leaves.</p>}
          </section>
        )}
      </Show>

      <ProposalList kind="masking" view={view} loaded={maskingProposals} onChange={reload} />
      <ProposalList kind="egress" view={view} loaded={egressProposals} onChange={reload} />

      {can("masking.edit") && masking.data && (
        <>
          <h2>Propose a masking file</h2>
          <ActionForm
            label="Propose masking file"
            submit={async (fields) => {
              await rpc.masking.propose.mutate({
                orgId: org.id,
                summary: field(fields, "summary") ?? "",
                content: String(fields.get("content") ?? ""),
                repository: field(fields, "repository"),
              });
              reload();
              return "Proposed; someone with masking.approve decides it.";
            }}
          >
            <label>
              Summary
              <input name="summary" required maxLength={200} />
            </label>
            <label>
              Repository (blank: the claimed one)
              <input name="repository" placeholder="owner/name" />
            </label>
            <label>
              Masking file, exactly as the engine reads it
              <textarea name="content" rows={8} cols={60} defaultValue={masking.data.content} />
            </label>
          </ActionForm>
        </>
      )}
      {can("network.edit") && egress.data?.policy && (
        <>
          <h2 ref={proposeForm}>Propose an egress policy</h2>
          <ActionForm
            label="Propose egress policy"
            submit={async (fields) => {
              const proposed = await rpc.network.propose.mutate({
                orgId: org.id,
                summary: field(fields, "summary") ?? "",
                repository: field(fields, "repository"),
                policy: {
                  default: fields.get("default") === "allow" ? "allow" : "deny",
                  allow: parseRules(field(fields, "allow")),
                  deny: parseRules(field(fields, "deny")),
                },
              });
              reload();
              return proposed.loosens
                ? `Proposed; it loosens egress (allows ${proposed.loosened.join(", ")}), and needs approval like any change.`
                : "Proposed; someone with network.approve decides it.";
            }}
          >
            <label>
              Summary
              <input
                name="summary"
                required
                maxLength={200}
                defaultValue={allowing ? `Allow ${allowing}${fromRun ? ` (denied in run ${fromRun})` : ""}`.slice(0, 200) : undefined}
              />
            </label>
            <label>
              Repository (blank: the claimed one)
              <input name="repository" placeholder="owner/name" />
            </label>
            <label>
              Hosts no rule names
              <select name="default" defaultValue={egress.data.policy.default}>
                <option value="deny">deny</option>
                <option value="allow">allow</option>
              </select>
            </label>
            <label>
              Allowed hosts (one a line; host or host:443,80)
              <textarea name="allow" rows={4} cols={40} defaultValue={withLine(rulesText(egress.data.policy.allow), allowing)} />
            </label>
            <label>
              Denied hosts (a deny wins)
              <textarea name="deny" rows={3} cols={40} defaultValue={rulesText(egress.data.policy.deny)} />
            </label>
          </ActionForm>
        </>
      )}
      {can("tokens.manage") && <ForkCommits view={view} />}
    </>
  );
}

function PullRequestState({ proposal }: { proposal: Proposal }) {
  const pull = proposal.pullRequest;
  if (proposal.state !== "approved") return <span class="muted">{proposal.state === "rejected" ? "none (rejected)" : "after approval"}</span>;
  if (pull.state === "opened")
    return (
      <span>
        #{pull.number} opened on <code>{pull.branch}</code>
        {pull.url && (
          <>
            {" "}
            (<a href={pull.url}>view</a>)
          </>
        )}
      </span>
    );
  if (pull.state === "refused") return <span class="danger">refused: {pull.refusal}</span>;
  return <span class="muted">not tried</span>;
}

function ProposalList({ kind, view, loaded, onChange }: { kind: Kind; view: OrgView; loaded: Paged<Proposal>; onChange: () => void }) {
  const { org, can } = view;
  const procedures = rpc[ROUTER[kind]];
  const mayDecide = can(kind === "masking" ? "masking.approve" : "network.approve");
  return (
    <section aria-label={`${TITLE[kind]} proposals`}>
      <h2>{TITLE[kind]} proposals</h2>
      <Show loaded={loaded}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(proposal) => proposal.id}
            rowProps={(proposal) => ({ "data-testid": `proposal-${proposal.summary}` })}
            empty={<>No {kind} proposals yet.</>}
            columns={[
              {
                header: "Change",
                cell: (proposal) => (
                  <>
                    {proposal.summary} <span class="muted">in {proposal.repository}</span>
                    {proposal.loosens && (
                      <>
                        {" "}
                        <strong class="flag danger">Loosens egress</strong> <span class="muted">allows {proposal.loosened.join(", ")}</span>
                      </>
                    )}
                    {kind === "egress" && proposal.state === "proposed" && <EgressEffect orgId={org.id} proposalId={proposal.id} />}
                    <details>
                      <summary>Text</summary>
                      <pre class="file">{proposal.content}</pre>
                    </details>
                  </>
                ),
              },
              {
                header: "Proposed",
                cell: (proposal) => (
                  <>
                    {proposal.proposedBy}
                    {proposal.mine && " (you)"}, <Time at={proposal.proposedAt} />
                  </>
                ),
              },
              {
                header: "State",
                cell: (proposal) => (
                  <>
                    <Status value={proposal.state} />
                    {proposal.decidedBy && <> by {proposal.decidedBy}</>}
                    {proposal.decisionNote && <>: {proposal.decisionNote}</>}
                  </>
                ),
              },
              { header: "Pull request", cell: (proposal) => <PullRequestState proposal={proposal} /> },
              {
                header: "Actions",
                props: () => ({ class: "row-actions" }),
                cell: (proposal) => (
                  <>
                    {proposal.state === "proposed" && mayDecide && !proposal.mine && (
                      <>
                        <ActionButton
                          label="Approve"
                          kind="primary"
                          run={async () => {
                            const approved = await procedures.approve.mutate({ orgId: org.id, proposalId: proposal.id });
                            onChange();
                            return approved.pullRequest.state === "opened"
                              ? `Approved; pull request #${approved.pullRequest.number} opened.`
                              : `Approved, but the pull request was refused: ${approved.pullRequest.refusal}`;
                          }}
                        />
                        <ActionButton
                          label="Reject"
                          kind="danger"
                          confirm={`Reject "${proposal.summary}"?`}
                          run={async () => {
                            await procedures.reject.mutate({ orgId: org.id, proposalId: proposal.id });
                            onChange();
                            return "Rejected.";
                          }}
                        />
                      </>
                    )}
                    {proposal.state === "proposed" && proposal.mine && <span class="muted">Yours: someone else decides it.</span>}
                    {proposal.state === "approved" && proposal.pullRequest.state !== "opened" && mayDecide && (
                      <ActionButton
                        label="Open the pull request again"
                        run={async () => {
                          const retried = await procedures.openPullRequest.mutate({ orgId: org.id, proposalId: proposal.id });
                          onChange();
                          return retried.pullRequest.state === "opened"
                            ? `Pull request #${retried.pullRequest.number} opened.`
                            : `Refused again: ${retried.pullRequest.refusal}`;
                        }}
                      />
                    )}
                  </>
                ),
              },
            ]}
          />
        )}
      </Show>
      <ShowMore paged={loaded} />
    </section>
  );
}

function ForkCommits({ view }: { view: OrgView }) {
  const { org } = view;
  const commits = usePaged((cursor) => rpc.pullRequests.commits.query({ orgId: org.id, cursor }), [org.id]);
  return (
    <section aria-label="Fork commits">
      <h2>Fork pull-request commits</h2>
      <p>A fork's pull request gets no check credential until a maintainer approves its exact commit; a new push is a new commit and waits again.</p>
      <Show loaded={commits}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(row) => row.repository + row.commit}
            empty="No fork commit has asked for a check credential."
            columns={[
              { header: "Repository", cell: (row) => row.repository },
              {
                header: "Pull request",
                cell: (row) => (
                  <>
                    {row.pullRequest ? `#${row.pullRequest}` : "?"}
                    {row.headRepository && <span class="muted"> from {row.headRepository}</span>}
                  </>
                ),
              },
              { header: "Commit", cell: (row) => <code>{row.commit}</code> },
              { header: "Asked", cell: (row) => <Time at={row.requestedAt} /> },
              {
                header: "Approval",
                cell: (row) =>
                  row.approvedAt ? (
                    <>
                      approved by {row.approvedBy}, <Time at={row.approvedAt} />
                    </>
                  ) : (
                    <ActionButton
                      label={`Approve commit ${row.commit.slice(0, 7)}`}
                      confirm={`Let commit ${row.commit.slice(0, 7)} from a fork report its check? Approve only code you have read.`}
                      run={async () => {
                        await rpc.pullRequests.approveCommit.mutate({
                          orgId: org.id,
                          repository: row.repository,
                          commit: row.commit,
                          pullRequest: row.pullRequest ?? undefined,
                        });
                        commits.reload();
                        return `Approved ${row.commit.slice(0, 7)}; its check may report now.`;
                      }}
                    />
                  ),
              },
            ]}
          />
        )}
      </Show>
      <ShowMore paged={commits} />
    </section>
  );
}

const requestsText = (count: number) => (count === 1 ? "1 request" : `${count} requests`);
const environmentsText = (count: number) => (count === 1 ? "1 environment" : `${count} environments`);

/**
 * An egress proposal's effect before it is decided (network.effect): the recorded decisions of the
 * last 30 days replayed against it. "Would have allowed 14 requests from 3 environments
 * (api.payments.example:443); newly denies none."
 */
function EgressEffect({ orgId, proposalId }: { orgId: string; proposalId: string }) {
  const effect = useLoad(() => rpc.network.effect.query({ orgId, proposalId }), [orgId, proposalId], { topics: ["records"] });
  if (!effect.data) return null;
  const { days, requests, newlyAllowed, newlyDenied } = effect.data;
  const direction = (change: typeof newlyAllowed) =>
    `${requestsText(change.requests)} from ${environmentsText(change.environments)} (${change.destinations.join(", ")})`;
  return (
    <p class="effect" data-testid="egress-effect">
      {requests === 0 ? (
        <>No network decisions recorded in the last {days} days to replay against it.</>
      ) : (
        <>
          Replayed against the last {days} days' {requestsText(requests)}:{" "}
          {newlyAllowed.requests > 0 ? `would have allowed ${direction(newlyAllowed)}` : "allows nothing more"};{" "}
          {newlyDenied.requests > 0 ? `newly denies ${direction(newlyDenied)}` : "newly denies none"}.
        </>
      )}
    </p>
  );
}
