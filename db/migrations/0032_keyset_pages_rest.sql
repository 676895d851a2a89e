-- The last lists the console shows that paged by a time or not at all read a page as one range of an
-- index too (issue 36, as 0028): invitations newest first, and an organization's proposals of one kind
-- newest first. The proposals' index replaces the one by time alone, which also had to filter by kind.
CREATE INDEX invitations_created ON invitations (org_id, created_at, id);
DROP INDEX change_proposals_org;
CREATE INDEX change_proposals_org ON change_proposals (org_id, kind, proposed_at, id);
