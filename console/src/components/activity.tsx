// The last 30 days on the Overview and an environment's page (overview.activity): what the sweep
// rolled up, at most five minutes behind; days are UTC days.
import { useLoad } from "../load";
import { rpc } from "../rpc";
import { ChartNumbers, DailyChart, drawn, type Series } from "./chart";
import { Empty, Show } from "./feedback";
import { dollars } from "./money";

const money = (micros: number) => dollars(micros / 1_000_000);

export function Activity({ orgId, envId }: { orgId: string; envId?: string }) {
  const activity = useLoad(() => rpc.overview.activity.query({ orgId, ...(envId ? { envId } : {}) }), [orgId, envId]);
  return (
    <section aria-labelledby="activity-heading">
      <h2 id="activity-heading">The last 30 days</h2>
      <Show loaded={activity}>
        {({ days: rows, spend }) => {
          const days = rows.map((row) => row.day);
          const series = (name: string, pick: (row: (typeof rows)[number]) => number, tone?: Series["tone"]): Series => ({
            name,
            values: rows.map(pick),
            ...(tone ? { tone } : {}),
          });
          const events = series("Events", (row) => row.events);
          const passed = series("Runs passed", (row) => row.runsPassed);
          const failed = series("Runs failed", (row) => row.runsFailed, "danger");
          const other = series("Runs errored or cancelled", (row) => row.runsOther, "muted");
          const verdicts = series("Failed verdicts", (row) => row.verdictsFailed, "danger");
          const workloads = series("Workload runs", (row) => row.workloadRuns);
          const spent = spend && { name: "Spent this month", values: spend.map((day) => day.spentMicros) };
          const budget = spend && { name: "Budget", values: spend.map((day) => day.budgetMicros) };
          // Nothing at all in 30 days (a new organization): one sentence, not a row of empty charts.
          if (!drawn([events, workloads, ...(spent ? [spent] : [])], budget ?? undefined))
            return <Empty>Nothing in the last 30 days yet: the charts draw themselves once an engine reports its first events.</Empty>;
          return (
            <>
              <p class="muted">Per UTC day, counted every five minutes; hover a bar for its day's numbers.</p>
              <div class="charts">
                <DailyChart title="Events" days={days} series={[events]} />
                <DailyChart title="Runs by outcome" days={days} series={[passed, failed, other]} />
                <DailyChart title="Failed verdicts" days={days} series={[verdicts]} />
                <DailyChart title="Workload runs" days={days} series={[workloads]} />
                {spent && budget && <DailyChart title="Model spend this month" days={days} headline="last" format={money} series={[spent]} limit={budget} />}
              </div>
              <ChartNumbers
                days={days}
                columns={[
                  events,
                  passed,
                  failed,
                  other,
                  verdicts,
                  workloads,
                  ...(spent && budget
                    ? [
                        { ...spent, format: money },
                        { ...budget, format: money },
                      ]
                    : []),
                ]}
              />
            </>
          );
        }}
      </Show>
    </section>
  );
}
