export * from "./organizations";
export * from "./people";
export * from "./tokens";
export * from "./environments";
export * from "./events";
export * from "./audit";
