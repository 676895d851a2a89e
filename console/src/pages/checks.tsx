// Checks: each check that failed lately, across every environment it ran on (checks.history), so a
// reviewer sees whether a failure is their change (one environment) or something the environments
// share (a dependency, a service): "sends the confirmation mail failed on pr-7 and pr-9 in the last
// 7 days; passed on main".
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { Empty, Show } from "../components/feedback";
import { Link } from "../components/link";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";

type Check = Outputs["checks"]["history"]["checks"][number];

const SPANS = [1, 7, 30] as const;
const spanText = (days: number) => (days === 1 ? "in the last day" : `in the last ${days} days`);

export function ChecksPage({ view }: { view: OrgView }) {
  const { org } = view;
  const [days, setDays] = useState<(typeof SPANS)[number]>(7);
  const history = useLoad(() => rpc.checks.history.query({ orgId: org.id, days }), [org.id, days], { topics: ["records"] });
  const environment = (envId: string) => <Link href={`/o/${encodeURIComponent(org.slug)}/environments/${encodeURIComponent(envId)}`}>{envId}</Link>;
  return (
    <>
      <h1>Checks</h1>
      <p class="muted">
        Each check that failed, on every environment it ran on: failing on many environments at once points to something they share, failing on one to that
        environment's change.
      </p>
      <label>
        Over
        <select value={days} onChange={(event) => setDays(Number(event.currentTarget.value) as (typeof SPANS)[number])}>
          {SPANS.map((span) => (
            <option key={span} value={span}>
              {spanText(span).replace("in ", "")}
            </option>
          ))}
        </select>
      </label>
      <Show loaded={history}>
        {(data) =>
          data.checks.length === 0 ? (
            <Empty>No check failed {spanText(data.days)}: the verdicts engines report (verdict.recorded) show here once one fails.</Empty>
          ) : (
            <ul class="checks" data-testid="checks">
              {data.checks.map((check) => (
                <li key={check.name}>
                  <CheckSentence check={check} span={spanText(data.days)} environment={environment} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </>
  );
}

/** "a, b and c" of `parts`. */
function listed(parts: ComponentChildren[]): ComponentChildren[] {
  return parts.flatMap((part, index) => [index === 0 ? "" : index === parts.length - 1 ? " and " : ", ", part]);
}

function CheckSentence({ check, span, environment }: { check: Check; span: string; environment: (envId: string) => ComponentChildren }) {
  const failed = check.environments.filter((env) => env.failures > 0);
  const passed = check.environments.filter((env) => env.failures === 0);
  return (
    <p>
      <strong>{check.name}</strong> failed on{" "}
      {listed(
        failed.map((env) => (
          <span key={env.envId}>
            {environment(env.envId)}
            {env.failures > 1 ? ` (${env.failures} times)` : ""}
          </span>
        )),
      )}{" "}
      {span}
      {passed.length > 0 && <>; passed on {listed(passed.map((env) => <span key={env.envId}>{environment(env.envId)}</span>))}</>}.{" "}
      <span class="muted">
        Last failed <Time at={check.lastFailedAt} />.
      </span>
    </p>
  );
}
