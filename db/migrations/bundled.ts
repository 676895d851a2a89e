// The migrations as the Worker carries them (SVC_MIGRATE=1). A test checks this list against the
// .sql files on disk, so a new migration cannot be forgotten here.
import type { Migration } from "../migrate";
import roles from "./0001_roles.sql";
import core from "./0002_core.sql";
import workloads from "./0003_workloads.sql";
import codehost from "./0004_codehost.sql";
import signin from "./0005_signin.sql";
import previewUrls from "./0006_preview_urls.sql";
import commandLookup from "./0007_command_lookup.sql";
import cliTokensFollowPerson from "./0008_cli_tokens_follow_person.sql";
import billing from "./0009_billing.sql";
import dataExports from "./0010_data_exports.sql";
import organizationDeletion from "./0011_organization_deletion.sql";
import codehostDeliveryOutcomes from "./0012_codehost_delivery_outcomes.sql";
import providerKeys from "./0013_provider_keys.sql";
import engineRecords from "./0014_engine_records.sql";
import proposals from "./0015_proposals.sql";
import operators from "./0016_operators.sql";
import mcpOauth from "./0018_mcp_oauth.sql";
import leads from "./0019_leads.sql";
import siteAnalytics from "./0020_site_analytics.sql";
import accountsById from "./0021_accounts_by_id.sql";
import claimProof from "./0022_claim_proof.sql";
import approvalPages from "./0023_approval_pages.sql";
import providerOverrun from "./0024_provider_overrun.sql";
import codehostDeliveryBodies from "./0025_codehost_delivery_bodies.sql";
import heldExportExpiry from "./0026_held_export_expiry.sql";

export const BUNDLED_MIGRATIONS: readonly Migration[] = [
  { name: "0001_roles", sql: roles },
  { name: "0002_core", sql: core },
  { name: "0003_workloads", sql: workloads },
  { name: "0004_codehost", sql: codehost },
  { name: "0005_signin", sql: signin },
  { name: "0006_preview_urls", sql: previewUrls },
  { name: "0007_command_lookup", sql: commandLookup },
  { name: "0008_cli_tokens_follow_person", sql: cliTokensFollowPerson },
  { name: "0009_billing", sql: billing },
  { name: "0010_data_exports", sql: dataExports },
  { name: "0011_organization_deletion", sql: organizationDeletion },
  { name: "0012_codehost_delivery_outcomes", sql: codehostDeliveryOutcomes },
  { name: "0013_provider_keys", sql: providerKeys },
  { name: "0014_engine_records", sql: engineRecords },
  { name: "0015_proposals", sql: proposals },
  { name: "0016_operators", sql: operators },
  { name: "0018_mcp_oauth", sql: mcpOauth },
  { name: "0019_leads", sql: leads },
  { name: "0020_site_analytics", sql: siteAnalytics },
  { name: "0021_accounts_by_id", sql: accountsById },
  { name: "0022_claim_proof", sql: claimProof },
  { name: "0023_approval_pages", sql: approvalPages },
  { name: "0024_provider_overrun", sql: providerOverrun },
  { name: "0025_codehost_delivery_bodies", sql: codehostDeliveryBodies },
  { name: "0026_held_export_expiry", sql: heldExportExpiry },
];
