// `npm run build:console`: the console into console-out/, the directory wrangler.toml's [assets]
// uploads. SVC_CONSOLE_DIR, when set at build time, names another output directory (a deployment
// that builds elsewhere points [assets].directory there); the Worker itself never reads it.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  // The Worker's own addresses are never the console's; the build is served from the site root.
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: process.env.SVC_CONSOLE_DIR ?? fileURLToPath(new URL("../console-out", import.meta.url)),
    // Emptied each build; public/.assetsignore is copied back, so the directory never goes missing.
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: true,
    rolldownOptions: {
      // The console's page, and the operator portal's script, which the Worker's /admin page loads at a
      // fixed address (worker/operators/page.ts); what they share goes to a chunk under /assets/.
      input: {
        console: fileURLToPath(new URL("index.html", import.meta.url)),
        "operator-portal": fileURLToPath(new URL("src/operator-portal.ts", import.meta.url)),
      },
      output: { entryFileNames: (chunk) => (chunk.name === "operator-portal" ? "operator-portal.js" : "assets/[name]-[hash].js") },
    },
  },
  logLevel: "warn",
});
