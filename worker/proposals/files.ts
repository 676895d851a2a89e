// Where the proposals land in the repository: the masking file, read by the engine as it is, and the
// project configuration file, whose top-level `egress:` block the egress policy is.
export const MASKING_FILE = ".svc/masking.yml";
export const PROJECT_CONFIGURATION_FILE = ".svc/config.yml";

export type ProposalKind = "masking" | "egress";

export const FILE_OF: Record<ProposalKind, string> = { masking: MASKING_FILE, egress: PROJECT_CONFIGURATION_FILE };
