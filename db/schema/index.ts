// Every table the migrations create, one file per capability (db/README.md, "Schema"). The Worker
// imports the file it needs, never this index: each table here is code in the upload.
export * from "../enums";
export * from "./organizations";
export * from "./people";
export * from "./tokens";
export * from "./environments";
export * from "./events";
export * from "./audit";
export * from "./workloads";
export * from "./codehost";
export * from "./repository-claims";
export * from "./signin";
export * from "./mcp";
export * from "./billing";
export * from "./exports";
export * from "./deletion";
export * from "./providers";
export * from "./records";
export * from "./proposals";
export * from "./operators";
export * from "./site";
export * from "./analytics";
export * from "./assistant";
export * from "./activity";
