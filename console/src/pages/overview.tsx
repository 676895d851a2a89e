// The organization's home: what needs attention (overview.summary), each item linking to its page.
// A part the person's role may not open comes back null from the server and is not shown.
import { Activity } from "../components/activity";
import type { ComponentChildren } from "preact";
import { Empty, Show } from "../components/feedback";
import { Link } from "../components/link";
import { dollars } from "../components/money";
import { Relative, Time } from "../components/time";
import { useLoad } from "../load";
import { rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";
import { Status } from "../components/status-badge";

type Summary = Outputs["overview"]["summary"];

export function OverviewPage({ view }: { view: OrgView }) {
  const { org } = view;
  const summary = useLoad(() => rpc.overview.summary.query({ orgId: org.id }), [org.id], { topics: ["environments", "records", "workloads"] });
  return (
    <>
      <h1>Overview</h1>
      <Show loaded={summary}>{(data) => <Tiles view={view} data={data} />}</Show>
      <Activity orgId={org.id} />
    </>
  );
}

function Tiles({ view, data }: { view: OrgView; data: Summary }) {
  const at = (section: string) => `/o/${encodeURIComponent(view.org.slug)}/${section}`;
  const environment = (envId: string | null) =>
    envId ? <Link href={`${at("environments")}/${encodeURIComponent(envId)}`}>{envId}</Link> : <span class="muted">no environment</span>;
  const reported = data.environments.byState.length > 0;
  return (
    <div class="tiles">
      {data.deletion && (
        <Tile title="Deletion under way" link={view.can("data.export") ? { href: at("leaving"), label: "Follow the deletion" } : null} alert>
          <p>
            Requested <Time at={data.deletion.requestedAt} />; next step: {data.deletion.nextStep}
            {data.deletion.waitUntil && (
              <>
                , waiting until <Time at={data.deletion.waitUntil} />
              </>
            )}
            .
          </p>
        </Tile>
      )}
      <Tile title="Environments" link={{ href: at("environments"), label: "All environments" }}>
        {reported ? (
          <>
            <ul class="counts">
              {data.environments.byState.map((row) => (
                <li key={row.state}>
                  <strong>{row.count}</strong> <Status value={row.state} />
                </li>
              ))}
            </ul>
            {data.environments.failed.length > 0 && (
              <>
                <h3>Failed now</h3>
                <ul data-testid="failed-environments">
                  {data.environments.failed.map((env) => (
                    <li key={env.envId}>
                      {environment(env.envId)} ({env.repository}
                      {env.branch ? `, ${env.branch}` : ""}), last heard from <Relative at={env.lastEventAt} />
                    </li>
                  ))}
                </ul>
              </>
            )}
            <h3>Expiring within a day</h3>
            {data.environments.expiringSoon.length === 0 ? (
              <p class="muted">None.</p>
            ) : (
              <ul>
                {data.environments.expiringSoon.map((env) => (
                  <li key={env.envId}>
                    {environment(env.envId)} ({env.repository}) expires <Relative at={env.expiresAt} />
                  </li>
                ))}
              </ul>
            )}
          </>
        ) : (
          <Empty>
            No engine has reported yet. <Link href={at("getting-started")}>Getting started</Link> shows what is left to do.
          </Empty>
        )}
      </Tile>
      <Tile title="Latest failures" link={null}>
        {data.failures.runs.length === 0 && data.failures.verdicts.length === 0 ? (
          <p class="muted">No failed runs or verdicts.</p>
        ) : (
          <ul>
            {data.failures.verdicts.map((verdict) => (
              <li key={`${verdict.runId}/${verdict.name}`}>
                Verdict <strong>{verdict.name}</strong> failed{verdict.detail ? ` (${verdict.detail})` : ""} in run <code>{verdict.runId}</code> on{" "}
                {environment(verdict.envId)}, <Relative at={verdict.recordedAt} />
              </li>
            ))}
            {data.failures.runs.map((run) => (
              <li key={run.runId}>
                Run {run.name ?? <code>{run.runId}</code>} {run.outcome} on {environment(run.envId)}
                {run.finishedAt && (
                  <>
                    , <Relative at={run.finishedAt} />
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </Tile>
      {data.workloadRuns && (
        <Tile title="Workload runs" link={{ href: at("workloads"), label: "Workloads" }}>
          <p>
            <strong>{data.workloadRuns.waiting}</strong> waiting for an engine, <strong>{data.workloadRuns.held}</strong> held by one
            {data.workloadRuns.lapsed > 0 && (
              <>
                , <strong>{data.workloadRuns.lapsed}</strong> whose engine went quiet (the next claim takes it over)
              </>
            )}
            .
          </p>
          {data.workloadRuns.oldest.length > 0 && (
            <ul>
              {data.workloadRuns.oldest.map((run) => (
                <li key={run.id}>
                  {run.workload} on {environment(run.envId)}: {run.state === "requested" ? "waiting" : run.held ? "held" : "not held, its engine went quiet"},
                  requested <Relative at={run.requestedAt} />, deadline <Time at={run.deadlineAt} />
                </li>
              ))}
            </ul>
          )}
        </Tile>
      )}
      {data.spend && (
        <Tile title="Model spend this month" link={{ href: at("providers"), label: "Model provider keys" }}>
          {data.spend.length === 0 ? (
            <p class="muted">No provider has a budget, so the model proxy forwards nothing.</p>
          ) : (
            <ul>
              {data.spend.map((budget) => (
                <li key={budget.provider}>
                  {budget.provider}: {dollars(budget.spentUsd)} of {dollars(budget.monthlyCapUsd)}{" "}
                  <meter min={0} max={budget.monthlyCapUsd} value={budget.spentUsd} aria-label={`${budget.provider} budget used`} />
                  {budget.overrunUsd > 0 && <span class="warn"> ({dollars(budget.overrunUsd)} past the cap)</span>}
                </li>
              ))}
            </ul>
          )}
        </Tile>
      )}
      <Tile title="Plan" link={view.can("billing.manage") ? { href: at("billing"), label: "Billing" } : null}>
        {/* A suspension is the banner's to say, on every page, this one included. */}
        <p>
          The <strong>{data.plan}</strong> plan.
        </p>
      </Tile>
    </div>
  );
}

function Tile({ title, link, alert, children }: { title: string; link: { href: string; label: string } | null; alert?: boolean; children: ComponentChildren }) {
  return (
    <section class={`panel tile${alert ? " alert" : ""}`} aria-label={title}>
      <h2>{title}</h2>
      {children}
      {link && (
        <p>
          <Link href={link.href}>{link.label}</Link>
        </p>
      )}
    </section>
  );
}
