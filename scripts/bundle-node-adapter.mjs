// Part of `npm run build`: runbound's Node debug adapter (src/dap/node/adapter.ts, a process of its own) as one file
// with its CDP client, DAP session and source-map reader inside, over what tsc emitted for it. Installed, it needs no
// package beside runbound's own folder — which every sandbox shows — and those packages stay out of the install
// (3.5 MB as packages, under 1 MB bundled).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
await build({
  entryPoints: [path.join(root, "src/dap/node/adapter.ts")],
  outfile: path.join(root, "dist/src/dap/node/adapter.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "linked",
  // ws's optional native helpers: it runs without them.
  external: ["bufferutil", "utf-8-validate"],
  // The CommonJS packages inside call require() for Node's own modules.
  banner: {
    js: 'import { createRequire as __runboundRequire } from "node:module"; const require = __runboundRequire(import.meta.url);',
  },
  logLevel: "warning",
});
