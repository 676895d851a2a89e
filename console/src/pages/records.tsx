// Engine records on the environment page: its runs (paged), one run with its verdicts, artifacts and
// goldens, and its network (egress) decisions, filtered by allowed or denied (paged).
import { bytes, duration } from "../components/units";
import { useState } from "preact/hooks";
import { FailureNote, Show } from "../components/feedback";
import { Table } from "../components/table";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc, type Outputs } from "../rpc";
import { ShowMore, usePaged } from "../components/paged";
import { byUrgency } from "../components/status";
import { Status } from "../components/status-badge";
import { Link } from "../components/link";
import type { OrgView } from "../session";

const PAGE = 20;

type Run = Outputs["runs"]["list"]["items"][number];

/** What the runs list can be narrowed to ("": every run), failures first after all. */
const RUNS_SHOWN = [
  ["", "all"],
  ["failed", "failed only"],
  ["errored", "errored only"],
  ["running", "still running"],
  ["passed", "passed only"],
  ["cancelled", "cancelled only"],
] as const;
type RunsShown = (typeof RUNS_SHOWN)[number][0];

export function EngineRuns({ view, envId }: { view: OrgView; envId: string }) {
  const orgId = view.org.id;
  // Where a denied destination can be proposed for the egress policy, for whoever may propose one.
  const proposals = view.can("network.edit") ? `/o/${encodeURIComponent(view.org.slug)}/proposals` : null;
  const [show, setShow] = useState<RunsShown>("");
  const runs = usePaged((cursor) => rpc.runs.list.query({ orgId, envId, limit: PAGE, cursor, ...(show ? { show } : {}) }), [orgId, envId, show], {
    topics: ["records"],
    envId,
  });
  const [open, setOpen] = useState<string | null>(null);
  return (
    <section aria-label="Runs">
      <h2>Runs</h2>
      <label>
        Show
        <select value={show} onChange={(event) => setShow(event.currentTarget.value as RunsShown)}>
          {RUNS_SHOWN.map(([value, words]) => (
            <option key={value} value={value}>
              {words}
            </option>
          ))}
        </select>
      </label>
      {runs.failure && <FailureNote failure={runs.failure} />}
      {runs.data === undefined ? (
        !runs.failure && (
          <p role="status" class="muted">
            Loading...
          </p>
        )
      ) : (
        <Table
          rows={runs.data}
          rowKey={(run: Run) => run.runId}
          rowProps={() => ({ "data-testid": "engine-run" })}
          empty={
            show
              ? "No run of this environment matches; show all to see every run."
              : "No runs reported here yet. The engine's run.started and run.finished events show up here."
          }
          // A run's details open under its own row, not below the whole table.
          under={(run) => (open === run.runId ? <RunDetail orgId={orgId} runId={run.runId} proposals={proposals} /> : null)}
          columns={[
            {
              header: "Run",
              cell: (run) => (
                <>
                  <code>{run.runId}</code>
                  {run.name && <> {run.name}</>}
                </>
              ),
            },
            { header: "State", cell: (run) => <Status value={run.state} /> },
            {
              header: "Outcome",
              cell: (run) => (run.outcome ? <Status value={run.outcome} /> : <span class="muted">not finished</span>),
              props: () => ({ "data-testid": "run-outcome" }),
            },
            { header: "Started", cell: (run) => <Time at={run.startedAt} none="not reported" /> },
            { header: "Took", cell: (run) => (run.durationMs === null ? "" : duration(run.durationMs)) },
            {
              header: "Runtime",
              cell: (run) =>
                run.runtime ? (
                  <>
                    {run.runtime.name}
                    {!run.runtime.registered && <span class="muted"> (not registered)</span>}
                  </>
                ) : (
                  <span class="muted">none</span>
                ),
            },
            {
              header: "Verdicts",
              cell: (run) => (
                <>
                  {run.verdicts.pass} pass, {run.verdicts.fail} fail{run.verdicts.warn ? `, ${run.verdicts.warn} warn` : ""}
                </>
              ),
            },
            {
              header: null,
              cell: (run) => (
                <button type="button" class="secondary" aria-expanded={open === run.runId} onClick={() => setOpen(open === run.runId ? null : run.runId)}>
                  {open === run.runId ? "Hide" : "Details"}
                </button>
              ),
            },
          ]}
        />
      )}
      <ShowMore paged={runs} />
    </section>
  );
}

function RunDetail({ orgId, runId, proposals }: { orgId: string; runId: string; proposals: string | null }) {
  const run = useLoad(() => rpc.runs.get.query({ orgId, runId }), [orgId, runId], { topics: ["records"] });
  return (
    <section class="panel" aria-label={`Run ${runId}`}>
      <h3>
        Run <code>{runId}</code>
      </h3>
      <Show loaded={run}>
        {(detail) => (
          <>
            <dl class="facts">
              <dt>Outcome</dt>
              <dd>{detail.outcome ? <Status value={detail.outcome} /> : "not finished"}</dd>
              <dt>Started</dt>
              <dd>
                <Time at={detail.startedAt} none="not reported" />
              </dd>
              <dt>Finished</dt>
              <dd>
                <Time at={detail.finishedAt} none="not yet" />
              </dd>
              {detail.workloadRunId && (
                <>
                  <dt>Workload run</dt>
                  <dd>
                    <code>{detail.workloadRunId}</code>
                  </dd>
                </>
              )}
            </dl>
            <h4>Verdicts</h4>
            {detail.verdictList.length === 0 ? (
              <p class="muted">None recorded.</p>
            ) : (
              <ul data-testid="verdicts">
                {byUrgency(detail.verdictList, (v) => v.verdict).map((v) => (
                  <li key={v.name}>
                    <Status value={v.verdict} /> {v.name}
                    {v.detail && <span class="muted">: {v.detail}</span>}
                  </li>
                ))}
              </ul>
            )}
            <WhyItFailed runId={runId} detail={detail} proposals={proposals} />
            <h4>Artifacts</h4>
            {detail.artifacts.length === 0 ? (
              <p class="muted">None stored.</p>
            ) : (
              <ul data-testid="artifacts">
                {detail.artifacts.map((a) => (
                  <li key={a.name}>
                    {a.name} ({bytes(a.sizeBytes)}, <code>{a.digest}</code>) at <ArtifactLocation location={a.location} />
                  </li>
                ))}
              </ul>
            )}
            {detail.goldens.length > 0 && (
              <>
                <h4>Goldens published</h4>
                <ul>
                  {detail.goldens.map((g) => (
                    <li key={`${g.name}@${g.version}`}>
                      {g.name} version {g.version} <code>{g.digest}</code>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )}
      </Show>
    </section>
  );
}

type Decision = Outputs["decisions"]["list"]["items"][number];

export function NetworkDecisions({ orgId, envId }: { orgId: string; envId: string }) {
  const [filter, setFilter] = useState<"" | "allowed" | "denied">("");
  const decisions = usePaged(
    (cursor) => rpc.decisions.list.query({ orgId, envId, limit: PAGE, ...(filter ? { decision: filter } : {}), cursor }),
    [orgId, envId, filter],
    { topics: ["records"], envId },
  );
  return (
    <section aria-label="Network decisions">
      <h2>Network decisions</h2>
      <label>
        Show
        <select value={filter} onChange={(event) => setFilter(event.currentTarget.value as typeof filter)}>
          <option value="">all</option>
          <option value="allowed">allowed only</option>
          <option value="denied">denied only</option>
        </select>
      </label>
      {decisions.failure && <FailureNote failure={decisions.failure} />}
      {decisions.data === undefined ? (
        !decisions.failure && (
          <p role="status" class="muted">
            Loading...
          </p>
        )
      ) : (
        <Table
          rows={decisions.data}
          rowKey={(d: Decision) => d.eventId}
          rowProps={() => ({ "data-testid": "decision" })}
          empty={<>No {filter || ""} egress decisions reported here.</>}
          columns={[
            { header: "When", cell: (d) => <Time at={d.at} /> },
            // The run each decision came from, so a denied host can be tied to the check that failed in it.
            { header: "Run", cell: (d) => (d.runId ? <code>{d.runId}</code> : <span class="muted">none</span>) },
            { header: "Host", cell: (d) => d.host },
            { header: "Port", cell: (d) => d.port },
            { header: "Decision", cell: (d) => <Status value={d.decision} /> },
            { header: "Rule", cell: (d) => d.rule ?? <span class="muted">default</span> },
          ]}
        />
      )}
      <ShowMore paged={decisions} />
    </section>
  );
}

/** Where an artifact is: a link when it is a web address (http or https only: a location is the engine's text), else the text. */
function ArtifactLocation({ location }: { location: string }) {
  return /^https?:\/\//i.test(location) ? (
    <a href={location} rel="noopener noreferrer">
      <code>{location}</code>
    </a>
  ) : (
    <code>{location}</code>
  );
}

/**
 * A failed check beside what the same run was refused on the network ("checkout failed; 1 connection
 * denied in this run: api.payments.example:443"), and for whoever may propose egress changes a way
 * to propose allowing each destination, prefilled (pages/proposals.tsx reads `allow` and `run`).
 */
function WhyItFailed({ runId, detail, proposals }: { runId: string; detail: Outputs["runs"]["get"]; proposals: string | null }) {
  const failed = detail.verdictList.filter((v) => v.verdict === "fail").map((v) => v.name);
  const denied = detail.deniedConnections;
  if (failed.length === 0 || denied.length === 0) return null;
  const requests = denied.reduce((sum, connection) => sum + connection.requests, 0);
  const destination = (connection: (typeof denied)[number]) => `${connection.host}:${connection.port}`;
  return (
    <section class="why" aria-label="Why it failed" data-testid="why-failed">
      <p>
        <strong>{failed.join(", ")}</strong> failed; {requests === 1 ? "1 connection" : `${requests} connections`} denied in this run:{" "}
        {denied.map(destination).join(", ")}.
      </p>
      {proposals && (
        <ul>
          {denied.map((connection) => (
            <li key={destination(connection)}>
              <Link href={`${proposals}?${new URLSearchParams({ allow: destination(connection), run: runId })}`}>
                Propose allowing {destination(connection)}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
