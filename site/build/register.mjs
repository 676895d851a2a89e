// `node --import tsx --import ./site/build/register.mjs site/build/build.ts`: see node-hooks.mjs.
import { register } from "node:module";

register("./node-hooks.mjs", import.meta.url);
