#!/usr/bin/env node
// Installs what runbound needs to run its tour and its tests, and nothing twice. Dependency-free on purpose: it
// runs before node_modules exists. Everything goes into the project folder (node_modules/, later .venv/ and
// .tools/); nothing global. In CI (CI=true) a required component that cannot be installed is a failure.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const inCI = process.env.CI === "true" || process.env.CI === "1";
const log = (msg) => console.log(`setup: ${msg}`);

function fail(msg) {
  console.error(`setup: ${msg}`);
  process.exit(1);
}

function run(command, args) {
  log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: process.env });
  if (result.status !== 0)
    fail(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

// 1. Node itself.
const [major] = process.versions.node.split(".").map(Number);
if (major < 20) fail(`Node ${process.versions.node} is too old: runbound needs Node 20 or newer.`);

// 2. npm dependencies, keyed on the lock file so a changed lock reinstalls and an unchanged one costs nothing.
const lock = path.join(root, "package-lock.json");
const stamp = path.join(root, "node_modules", ".runbound-setup");
const lockHash = createHash("sha256").update(readFileSync(lock)).digest("hex");
const installed = existsSync(stamp) ? readFileSync(stamp, "utf8").trim() : "";
if (installed !== lockHash) {
  run("npm", ["ci", "--no-audit", "--no-fund"]);
  writeFileSync(stamp, `${lockHash}\n`);
} else {
  log("npm dependencies up to date");
}

// 3. Required components, checked after installing: in CI a missing one fails the run instead of skipping tests.
const required = [
  ["@modelcontextprotocol/sdk", "node_modules/@modelcontextprotocol/sdk/package.json"],
  ["tsx", "node_modules/.bin/tsx"],
  ["vitest", "node_modules/.bin/vitest"],
];
const missing = required.filter(([, file]) => !existsSync(path.join(root, file))).map(([name]) => name);
if (missing.length) fail(`missing after install: ${missing.join(", ")}${inCI ? " (required in CI)" : ""}`);
log("ready");
