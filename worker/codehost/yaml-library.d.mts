// The types of yaml-library.mjs, the `yaml` package's parts that scripts/generate.ts bundles into it.
export { Composer, CST, Lexer, Parser } from "yaml";
