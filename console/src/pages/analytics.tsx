// The installation analytics dashboard (analytics.overview, analytics.catalog): for owners and admins
// of the operating organization (SVC_ANALYTICS_OPERATOR_ORG); the frame offers it there only (the
// session's `operating`), and says why not anywhere else. Their input names no organization: the
// installation's analytics are no organization's. Charts are components/chart.tsx's.
import { useState } from "preact/hooks";
import { DailyChart } from "../components/chart";
import { Show } from "../components/feedback";
import { type Column, Table } from "../components/table";
import { useLoad } from "../load";
import { rpc, type Outputs } from "../rpc";

type Overview = Outputs["analytics"]["overview"];
type Point = Overview["series"][number];
type Cohort = Overview["retention"]["cohorts"][number];
const SPANS = [7, 28, 90] as const;

const CHARTS: Array<{ field: Exclude<keyof Point, "day">; title: string }> = [
  { field: "pagesLanded", title: "Pages landed on" },
  { field: "signupsReached", title: "Sign-up reached" },
  { field: "signups", title: "Sign-ups" },
  { field: "organizationsCreated", title: "Organizations created" },
  { field: "activeOrganizations", title: "Active organizations" },
  { field: "environments", title: "Environments created" },
  { field: "runs", title: "Runs started" },
];

function Funnel({ funnel }: { funnel: Overview["funnel"] }) {
  const names = { landed: "Landed on the site (sessions)", signup: "Reached sign-up (sessions)", first_environment: "First environment (organizations)" };
  const max = Math.max(1, ...funnel.map((step) => step.count));
  return (
    <figure class="chart">
      <figcaption>Funnel</figcaption>
      <svg role="img" aria-label={funnel.map((step) => `${names[step.step]}: ${step.count}`).join("; ")} viewBox="0 0 300 90">
        {funnel.map((step, index) => (
          <g key={step.step}>
            <rect x="0" y={index * 30 + 2} width={Math.max(1, (step.count / max) * 300)} height="24" />
            <title>{`${names[step.step]}: ${step.count}`}</title>
          </g>
        ))}
      </svg>
      <ol class="funnel">
        {funnel.map((step, index) => {
          const previous = index > 0 ? funnel[index - 1]!.count : null;
          return (
            <li key={step.step}>
              {names[step.step]}: <strong>{step.count}</strong>
              {previous !== null && previous > 0 && <span class="muted"> ({Math.round((step.count / previous) * 100)}% of the step before)</span>}
            </li>
          );
        })}
      </ol>
    </figure>
  );
}

function Retention({ retention }: { retention: Overview["retention"] }) {
  return (
    <section>
      <h2>Weekly retention</h2>
      <p class="muted">
        Organizations by the week they were created, and how many were active in each week after. A cell is a percentage only when its cohort has at least{" "}
        {retention.minimumForPercent} organizations; otherwise it is a count.
      </p>
      <Table
        class="retention"
        rows={retention.cohorts}
        rowKey={(cohort) => cohort.week}
        columns={[
          { header: "Cohort (week of)", rowHeader: true, cell: (cohort) => cohort.week },
          { header: "Organizations", cell: (cohort) => cohort.organizations },
          ...Array.from(
            { length: retention.weeks },
            (_, week): Column<Cohort> => ({
              header: <>Week {week}</>,
              cell: (cohort) => {
                const cell = cohort.cells[week];
                if (!cell) return null;
                return cell.kind === "percent" ? <>{cell.value}%</> : cell.value;
              },
              props: (cohort) => {
                const cell = cohort.cells[week];
                if (!cell) return {};
                return cell.kind === "percent"
                  ? { class: "percent", style: { "--share": `${cell.value}%` } }
                  : { title: "A count: fewer than the organizations a percentage needs" };
              },
            }),
          ),
        ]}
      />
    </section>
  );
}

export function AnalyticsPage() {
  const [days, setDays] = useState<(typeof SPANS)[number]>(28);
  const overview = useLoad(() => rpc.analytics.overview.query({ days }), [days]);
  const catalog = useLoad(() => rpc.analytics.catalog.query(), []);
  return (
    <>
      <h1>Installation analytics</h1>
      <div class="fields" role="group" aria-label="Period">
        {SPANS.map((span) => (
          <button key={span} type="button" class={span === days ? "" : "secondary"} aria-pressed={span === days} onClick={() => setDays(span)}>
            Last {span} days
          </button>
        ))}
      </div>
      <Show loaded={overview}>
        {(data) => (
          <>
            <p class="muted">
              {data.from} to {data.to} (UTC), from the daily rollup.
            </p>
            <dl class="facts totals">
              <dt>Pages landed on</dt>
              <dd>{data.totals.pagesLanded}</dd>
              <dt>Sessions that landed</dt>
              <dd>{data.totals.sessionsLanded}</dd>
              <dt>Sign-up reached</dt>
              <dd>{data.totals.signupsReached}</dd>
              <dt>Contact requests</dt>
              <dd>{data.totals.contactRequests}</dd>
              <dt>Sign-ups</dt>
              <dd>{data.totals.signups}</dd>
              <dt>Organizations created</dt>
              <dd>{data.totals.organizationsCreated}</dd>
              <dt>Active organizations</dt>
              <dd>{data.totals.activeOrganizations}</dd>
              <dt>Environments created</dt>
              <dd>{data.totals.environments}</dd>
              <dt>Runs started</dt>
              <dd>{data.totals.runs}</dd>
              <dt>Beacon events refused / duplicates</dt>
              <dd>
                {data.totals.refused} / {data.totals.duplicates}
              </dd>
            </dl>
            <div class="charts">
              {CHARTS.map((chart) => (
                <DailyChart
                  key={chart.field}
                  title={chart.title}
                  days={data.series.map((point) => point.day)}
                  series={[{ name: chart.title, values: data.series.map((point) => point[chart.field]) }]}
                />
              ))}
              <Funnel funnel={data.funnel} />
            </div>
            {data.channels.length > 0 && (
              <section>
                <h2>Channels</h2>
                <ul>
                  {data.channels.map((entry) => (
                    <li key={entry.channel}>
                      {entry.channel}: {entry.pagesLanded}
                    </li>
                  ))}
                </ul>
              </section>
            )}
            <Retention retention={data.retention} />
          </>
        )}
      </Show>
      {/* After the overview only: a refusal (the role changed meanwhile) is said once, by the overview. */}
      {overview.data && (
        <Show loaded={catalog}>
          {(data) => (
            <details>
              <summary>What is counted</summary>
              <p>The site beacon sends only these events, each with only these fields; anything else is refused and counted.</p>
              <ul>
                {data.events.map((event) => (
                  <li key={event.name}>
                    <code>{event.name}</code>: {event.description} ({event.fields.map((field) => field.name).join(", ")})
                  </li>
                ))}
              </ul>
              <dl class="facts">
                {data.metrics.map((metric) => [
                  <dt key={`${metric.metric}-t`}>
                    <code>{metric.metric}</code>
                  </dt>,
                  <dd key={`${metric.metric}-d`}>{metric.description}</dd>,
                ])}
              </dl>
            </details>
          )}
        </Show>
      )}
    </>
  );
}
