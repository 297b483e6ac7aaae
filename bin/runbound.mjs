#!/usr/bin/env node
// `runbound console|tour`: runs the built CLI when dist/ exists, else the TypeScript source through tsx.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const built = path.join(root, "dist", "src", "cli", "main.js");
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(root, "src", "cli", "main.ts")).href);
}
