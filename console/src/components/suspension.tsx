// The banner every page of a suspended organization shows under the navigation: when, why (the
// operator's reason, or the deletion under way) and what still works, so no member learns of it from
// a refusal. It reads organization.get, as Settings does; nothing shows while that loads or fails.
import { useLoad } from "../load";
import { rpc } from "../rpc";
import { Link } from "./link";
import { Time } from "./time";

export function SuspensionBanner({ orgId, slug }: { orgId: string; slug: string }) {
  const { data } = useLoad(() => rpc.organization.get.query({ orgId }), [orgId]);
  const suspension = data?.suspension;
  if (!suspension) return null;
  return (
    <section class="suspension" aria-label="Suspension">
      <p>
        <strong>This organization is suspended</strong> (suspended <Time at={suspension.since} />){" "}
        {suspension.by === "deletion" ? (
          <>
            because its deletion was requested; an owner can <Link href={`/o/${encodeURIComponent(slug)}/leaving`}>call the deletion off</Link> (Leaving).
          </>
        ) : (
          <>by the service's operators{suspension.reason ? <>, who say: “{suspension.reason}”</> : "."}</>
        )}
      </p>
      <p>
        Refused until it is lifted: its engines' events and work (they are told to retry later), and starting environments, workload, agent or load runs here.
        Still working: reading and changing everything in this console, data exports, and the engines' claims of their teardowns and cancellations.
      </p>
    </section>
  );
}
