#!/usr/bin/env node
// `runbound setup|doctor|tour|console`. `setup` is dependency-free and runs first, before anything else loads. The
// rest runs the built CLI (dist/, what the package ships); in a checkout (its tsconfig.json, which the package does
// not ship beside its sources), the TypeScript source through tsx, so a stale dist/ from an earlier `npm pack` is
// never what a developer runs.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "src", "cli", "main.ts");
const checkout = existsSync(path.join(root, "tsconfig.json"));
const args = process.argv.slice(2);
if (args[0] === "setup") {
  const setupFile = checkout ? "src/setup/provision.mjs" : "dist/src/setup/provision.mjs";
  const { setupMain } = await import(pathToFileURL(path.join(root, setupFile)).href);
  process.exitCode = setupMain(args.slice(1));
} else if (checkout) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(path.join(root, "dist", "src", "cli", "main.js")).href);
}
