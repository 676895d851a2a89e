// The enumerations the console shows, from their one definition beside the schema.
export { PLANS, ROLES, type Plan, type Role } from "../../db/enums";
