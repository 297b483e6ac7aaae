// Part of `npm run build`: runbound's Node processes — the debug adapter (src/dap/node/adapter.ts) and the JavaScript
// kernel (src/kernels/node/kernel.ts) — each as one file with its packages inside, over what tsc emitted for it.
// Installed, they need no package beside runbound's own folder — which every sandbox shows — and those packages
// stay out of the install (the adapter's 3.5 MB as packages, under 1 MB bundled; acorn for the kernel).
import { copyFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "linked",
  // The CommonJS packages inside call require() for Node's own modules.
  banner: {
    js: 'import { createRequire as __runboundRequire } from "node:module"; const require = __runboundRequire(import.meta.url);',
  },
  logLevel: "warning",
};
await build({
  ...common,
  entryPoints: [path.join(root, "src/dap/node/adapter.ts")],
  outfile: path.join(root, "dist/src/dap/node/adapter.js"),
  // ws's optional native helpers: it runs without them.
  external: ["bufferutil", "utf-8-validate"],
});
// The hook every Node child process of a debugged program loads (NODE_OPTIONS --require), beside the adapter.
copyFileSync(
  path.join(root, "src/dap/node/child-hook.cjs"),
  path.join(root, "dist/src/dap/node/child-hook.cjs"),
);
await build({
  ...common,
  entryPoints: [path.join(root, "src/kernels/node/kernel.ts")],
  outdir: path.join(root, "dist/src/kernels/node"),
  // acorn in a file of its own, loaded when a cell needs it.
  splitting: true,
  chunkNames: "kernel-[name]-[hash]",
  // acorn is an ES module: nothing inside calls require().
  banner: {},
});
