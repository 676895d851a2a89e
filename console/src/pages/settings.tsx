// The organization's facts and its display name.
import { ActionForm, field } from "../components/actions";
import { Show } from "../components/feedback";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { rpc } from "../rpc";
import type { OrgView } from "../session";
import { useContext } from "preact/hooks";
import { SessionContext } from "../session";

export function SettingsPage({ view }: { view: OrgView }) {
  const { org, can } = view;
  const { refresh } = useContext(SessionContext)!;
  const details = useLoad(() => rpc.organization.get.query({ orgId: org.id }), [org.id]);
  return (
    <>
      <h1>Settings</h1>
      <Show loaded={details}>
        {(about) => (
          <dl class="facts">
            <dt>Name</dt>
            <dd>{about.name}</dd>
            <dt>Slug</dt>
            <dd>
              <code>{about.slug}</code>
            </dd>
            <dt>Plan</dt>
            <dd>{about.plan}</dd>
            <dt>Suspended</dt>
            <dd>
              {about.suspension ? (
                <>
                  suspended <Time at={about.suspension.since} />, {about.suspension.by === "deletion" ? "for its deletion" : "by the service's operators"}
                  {about.suspension.reason && <>: “{about.suspension.reason}”</>}
                </>
              ) : (
                "no"
              )}
            </dd>
            <dt>Created</dt>
            <dd>
              <Time at={about.createdAt} />
            </dd>
            <dt>Your role</dt>
            <dd>{about.role}</dd>
          </dl>
        )}
      </Show>
      {can("organization.settings") && (
        <>
          <h2>Rename</h2>
          <ActionForm
            label="Save name"
            submit={async (fields) => {
              const saved = await rpc.organization.settings.mutate({ orgId: org.id, name: field(fields, "name") ?? "" });
              details.reload();
              await refresh();
              return `Renamed to ${saved.name}.`;
            }}
          >
            <label>
              Display name
              <input name="name" required maxLength={100} defaultValue={org.name} />
            </label>
          </ActionForm>
        </>
      )}
    </>
  );
}
