// The enumerations the console shows, from their one definition beside the schema.
export { ENVIRONMENT_STATES, PLANS, ROLES, type EnvironmentState, type Plan, type Role } from "../../db/enums";
