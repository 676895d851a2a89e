// Members and their roles (change, remove, sync from the code host) and invitations (create, resend,
// revoke); what a role may not do is not offered.
import { useContext, useState } from "preact/hooks";
import type { Role } from "../../../worker/shared/enums";
import { ActionButton, ActionForm, ShownOnce, field } from "../components/actions";
import { Show } from "../components/feedback";
import { Time } from "../components/time";
import { ShowMore, usePaged } from "../components/paged";
import { Table } from "../components/table";
import { rpc, type Outputs } from "../rpc";
import { SessionContext, type OrgView } from "../session";
import { Status } from "../components/status-badge";

const ROLES: Role[] = ["owner", "admin", "member", "viewer"];

export function MembersPage({ view }: { view: OrgView }) {
  const { org, can } = view;
  const manage = can("members.manage");
  const members = usePaged((cursor) => rpc.members.list.query({ orgId: org.id, cursor }), [org.id]);
  return (
    <>
      <h1>Members</h1>
      <Show loaded={members}>{(rows) => <MemberTable view={view} rows={rows} reload={members.reload} />}</Show>
      <ShowMore paged={members} />
      {manage && (
        <div class="row-actions">
          <ActionButton
            label="Sync from the code host"
            run={async () => {
              const result = await rpc.members.sync.mutate({ orgId: org.id });
              members.reload();
              const said = [`${result.changed.length} role(s) changed`, `${result.removed.length} removed`];
              if (result.kept.length) said.push(`kept ${result.kept.join(", ")} (the last owner)`);
              return `Synced: ${said.join(", ")}.`;
            }}
          />
        </div>
      )}
      {manage && <Invitations view={view} />}
    </>
  );
}

function MemberTable({ view, rows, reload }: { view: OrgView; rows: Outputs["members"]["list"]["items"]; reload: () => void }) {
  const { org, can } = view;
  const me = useContext(SessionContext)!.session.person.id;
  // Only an owner makes owners or changes an owner's role; the server refuses the rest too.
  const mayChange = (role: string) => can("members.manage") && (org.role === "owner" || role !== "owner");
  const labelOf = (member: Outputs["members"]["list"]["items"][number]) => member.login ?? member.name ?? member.personId;
  return (
    <Table
      rows={rows}
      rowKey={(member) => member.personId}
      rowProps={(member) => ({ ...(member.login !== null && { "data-login": member.login }) })}
      columns={[
        {
          header: "Person",
          cell: (member) => (
            <>
              {labelOf(member)}
              {member.personId === me && <span class="muted"> (you)</span>}
              {member.name && member.login && <div class="muted">{member.name}</div>}
            </>
          ),
        },
        {
          header: "Role",
          cell: (member) => (
            <>
              {member.role}
              {member.manual && <span class="muted"> (set by hand)</span>}
            </>
          ),
        },
        { header: "Joined", cell: (member) => <Time at={member.joinedAt} /> },
        can("members.manage") && {
          header: "Actions",
          cell: (member) => {
            const label = labelOf(member);
            // The only owner is neither removed nor demoted (the server refuses both): nothing to offer but why.
            if (member.lastOwner) return <span class="muted">The only owner: make another member an owner first.</span>;
            return (
              mayChange(member.role) && (
                <div class="row-actions">
                  <RoleChange view={view} personId={member.personId} label={label} current={member.role} reload={reload} />
                  <ActionButton
                    label="Remove"
                    kind="danger"
                    confirm={`Remove ${label}?`}
                    run={async () => {
                      await rpc.members.remove.mutate({ orgId: org.id, personId: member.personId });
                      reload();
                      return `Removed ${label}.`;
                    }}
                  />
                </div>
              )
            );
          },
        },
      ]}
    />
  );
}

function RoleChange({ view, personId, label, current, reload }: { view: OrgView; personId: string; label: string; current: string; reload: () => void }) {
  const { org } = view;
  const offered = ROLES.filter((role) => org.role === "owner" || role !== "owner");
  const [role, setRole] = useState(current);
  return (
    <span class="row-actions">
      <label>
        New role for {label}
        <select value={role} onChange={(event) => setRole(event.currentTarget.value)}>
          {offered.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </label>
      <ActionButton
        label="Change role"
        run={async () => {
          const changed = await rpc.members.changeRole.mutate({ orgId: org.id, personId, role: role as Role });
          reload();
          return `${label} is now ${changed.role}.`;
        }}
      />
    </span>
  );
}

function Invitations({ view }: { view: OrgView }) {
  const { org } = view;
  const invitations = usePaged((cursor) => rpc.invitations.list.query({ orgId: org.id, cursor }), [org.id]);
  const [link, setLink] = useState<string | null>(null);
  const delivered = (answer: Outputs["invitations"]["create"]) => {
    setLink(answer.link);
    invitations.reload();
    return answer.mailed ? `Invitation mailed to ${answer.invitation.email}.` : `Invitation made for ${answer.invitation.email}; send them the link.`;
  };
  return (
    <>
      <h2>Invitations</h2>
      <Show loaded={invitations}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(invitation) => invitation.id}
            empty="No invitations yet. Invite someone by email address below; they join when they open the link and sign in."
            columns={[
              { header: "Address", cell: (invitation) => invitation.email },
              { header: "Role", cell: (invitation) => invitation.role },
              { header: "State", cell: (invitation) => <Status value={invitation.state} /> },
              { header: "Invited by", cell: (invitation) => invitation.invitedBy ?? <span class="muted">a former member</span> },
              { header: "Expires", cell: (invitation) => <Time at={invitation.expiresAt} lapsed="expired" /> },
              {
                header: "Actions",
                cell: (invitation) =>
                  invitation.state !== "accepted" &&
                  invitation.state !== "revoked" && (
                    <div class="row-actions">
                      <ActionButton
                        label="Resend"
                        run={async () => delivered(await rpc.invitations.resend.mutate({ orgId: org.id, invitationId: invitation.id }))}
                      />
                      <ActionButton
                        label="Revoke"
                        kind="danger"
                        confirm={`Revoke the invitation for ${invitation.email}?`}
                        run={async () => {
                          await rpc.invitations.revoke.mutate({ orgId: org.id, invitationId: invitation.id });
                          invitations.reload();
                          return "Revoked: its link no longer works.";
                        }}
                      />
                    </div>
                  ),
              },
            ]}
          />
        )}
      </Show>
      <ShowMore paged={invitations} />
      <h3>Invite someone</h3>
      <ActionForm
        label="Invite"
        submit={async (fields) => {
          setLink(null);
          return delivered(
            await rpc.invitations.create.mutate({ orgId: org.id, email: field(fields, "email") ?? "", role: (field(fields, "role") ?? "member") as Role }),
          );
        }}
      >
        <label>
          Email address
          <input name="email" type="email" required />
        </label>
        <label>
          Role
          <select name="role">
            {ROLES.filter((role) => org.role === "owner" || role !== "owner").map((role) => (
              <option key={role} value={role} selected={role === "member"}>
                {role}
              </option>
            ))}
          </select>
        </label>
      </ActionForm>
      {link && <ShownOnce label="The invitation link" value={link} />}
    </>
  );
}
