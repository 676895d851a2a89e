// The organization's home: what needs attention (overview.summary), each item linking to its page.
// A part the person's role may not open comes back null from the server and is not shown.
import { Activity } from "../components/activity";
import type { ComponentChildren } from "preact";
import { Empty, Show } from "../components/feedback";
import { Link } from "../components/link";
import { dollars } from "../components/money";
import { Time } from "../components/time";
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
    <>
      <NeedsAttention data={data} environment={environment} />
      <div class="tiles">
        {data.deletion && (
          <Tile title="Deletion under way" link={view.can("data.export") ? { href: at("leaving"), label: "Follow the deletion" } : null} alert>
            <p>
              Requested <Time at={data.deletion.requestedAt} />; next step: {data.deletion.nextStep}
              {data.deletion.waitUntil && (
                <>
                  , due <Time at={data.deletion.waitUntil} />
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
              <h3>Expiring within a day</h3>
              {data.environments.expiringSoon.length === 0 ? (
                <p class="muted">None.</p>
              ) : (
                <ul>
                  {data.environments.expiringSoon.map((env) => (
                    <li key={env.envId}>
                      {environment(env.envId)} ({env.repository}) expires <Time at={env.expiresAt} />
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
                  {environment(verdict.envId)}, <Time at={verdict.recordedAt} />
                </li>
              ))}
              {data.failures.runs.map((run) => (
                <li key={run.runId}>
                  Run {run.name ?? <code>{run.runId}</code>} {run.outcome} on {environment(run.envId)}
                  {run.finishedAt && (
                    <>
                      , <Time at={run.finishedAt} />
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
                    requested <Time at={run.requestedAt} />, deadline <Time at={run.deadlineAt} />
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
    </>
  );
}

/** Something broken now, and since when: what the band at the top of the overview lists, newest first. */
interface Attention {
  key: string;
  at: string;
  status: string;
  says: ComponentChildren;
}

/**
 * What is broken now, one linked row each, newest first: failed environments, environments whose latest
 * run failed, and workload runs that are stuck (their engine went quiet, or their deadline passed while
 * they waited).
 */
function NeedsAttention({ data, environment }: { data: Summary; environment: (envId: string | null) => ComponentChildren }) {
  const now = Date.now();
  const items: Attention[] = [
    ...data.environments.failed.map((env) => ({
      key: `env/${env.envId}`,
      at: env.lastEventAt,
      status: "failed",
      says: (
        <>
          Environment {environment(env.envId)} ({env.repository}
          {env.branch ? `, ${env.branch}` : ""})
        </>
      ),
    })),
    ...data.failures.runs.flatMap((run) =>
      run.latest && run.finishedAt
        ? [
            {
              key: `run/${run.runId}`,
              at: run.finishedAt,
              status: run.outcome,
              says: (
                <>
                  Run {run.name ?? <code>{run.runId}</code>} on {environment(run.envId)}, the latest there
                </>
              ),
            },
          ]
        : [],
    ),
    ...(data.workloadRuns?.oldest ?? []).flatMap((run) => {
      const quiet = run.state === "accepted" && !run.held;
      const late = Date.parse(run.deadlineAt) < now;
      if (!quiet && !late) return [];
      return [
        {
          key: `workload/${run.id}`,
          at: late ? run.deadlineAt : run.requestedAt,
          status: "stuck",
          says: (
            <>
              Workload {run.workload} on {environment(run.envId)}: {quiet ? "its engine went quiet" : "its deadline passed while it waited for an engine"}
            </>
          ),
        },
      ];
    }),
  ].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  return (
    <section class={`panel attention${items.length > 0 ? " alert" : ""}`} aria-labelledby="attention-heading">
      <h2 id="attention-heading">Needs attention</h2>
      {items.length === 0 ? (
        <p class="muted">Nothing is broken: no environment failed, no environment's latest run failed and no workload run is stuck.</p>
      ) : (
        <ul data-testid="needs-attention">
          {items.map((item) => (
            <li key={item.key}>
              <Status value={item.status} /> {item.says}, <Time at={item.at} />
            </li>
          ))}
        </ul>
      )}
    </section>
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
