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

// 3. Language servers that are not npm packages, for lsp and its tests. Project-local where the toolchain allows.
const GOPLS_VERSION = "v0.23.0"; // the newest gopls this machine's Go (1.26) builds; v0.24 needs Go 1.27
const goBin = path.join(root, ".tools", "go", "bin");
const optionalMissing = [];

function has(command, args = ["--version"]) {
  const r = spawnSync(command, args, { encoding: "utf8" });
  return r.status === 0 ? `${r.stdout}${r.stderr}` : undefined;
}

/** A Go tool built into .tools/go/bin at a pinned version, unless that version is there already. */
function goInstall(name, module, version, versionArgs) {
  const binary = path.join(goBin, name);
  if (existsSync(binary) && has(binary, versionArgs)?.includes(version.slice(1))) {
    log(`${name} ${version} present (.tools/go/bin)`);
  } else if (has("go", ["version"])) {
    log(`installing ${name} ${version} into .tools/go/bin (built from source: a minute or two)`);
    const r = spawnSync("go", ["install", `${module}@${version}`], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, GOBIN: goBin, GOTOOLCHAIN: "local", GOFLAGS: "-modcacherw" },
    });
    if (r.status !== 0) optionalMissing.push(`${name} (go install failed)`);
  } else {
    optionalMissing.push(`${name} (no Go toolchain)`);
  }
}

goInstall("gopls", "golang.org/x/tools/gopls", GOPLS_VERSION, ["version"]);
// Debug adapters: delve (Go), debugpy (runbound's own .venv), lldb (Debian).
goInstall("dlv", "github.com/go-delve/delve/cmd/dlv", "v1.27.2", ["version"]);

// runbound's own Python environment: debugpy (debug) and a Jupyter server with ipykernel, pandas, matplotlib (eval).
const venvPython = path.join(root, ".venv", "bin", "python");
const PYTHON_PACKAGES = [
  "debugpy==1.8.22",
  "jupyter_server==2.21.1",
  "ipykernel==7.4.0",
  "pandas==3.1.1",
  "matplotlib==3.11.2",
  // Builds local packages without fetching build tools (the %pip test installs one).
  "setuptools",
  "wheel",
];
const pythonCheck = "import debugpy, jupyter_server, ipykernel, pandas, matplotlib, setuptools, wheel";
if (existsSync(venvPython) && has(venvPython, ["-c", pythonCheck]) !== undefined) {
  log("Python environment present (.venv: debugpy, jupyter_server, ipykernel, pandas, matplotlib)");
} else {
  log("making .venv (debugpy, jupyter_server, ipykernel, pandas, matplotlib) with pip");
  if (!existsSync(venvPython)) run("python3", ["-m", "venv", ".venv"]);
  const r = spawnSync(venvPython, ["-m", "pip", "install", "-q", ...PYTHON_PACKAGES], {
    cwd: root,
    stdio: "inherit",
  });
  if (r.status !== 0) optionalMissing.push("the Python environment (pip install failed)");
}

const lldbAdapter = ["lldb-dap", "lldb-vscode", "lldb-vscode-16", "lldb-dap-16", "lldb-vscode-14"].find(
  (name) => has("which", [name]),
);
if (lldbAdapter) {
  log(`lldb adapter present (${lldbAdapter})`);
} else if (process.getuid?.() === 0 && has("apt-get", ["--version"])) {
  log("installing lldb-16 from Debian (apt-get)");
  run("apt-get", ["update", "-qq"]);
  run("apt-get", ["install", "-y", "-qq", "lldb-16"]);
} else {
  optionalMissing.push("lldb (not root, or no apt-get: install lldb with your package manager)");
}

if (has("rust-analyzer")) {
  log("rust-analyzer present");
} else if (has("rustup")) {
  // A component of the machine's own Rust toolchain (in ~/.rustup), as a fresh machine's rustup installs it.
  log("installing rust-analyzer (rustup component add rust-analyzer)");
  const r = spawnSync("rustup", ["component", "add", "rust-analyzer"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0 || !has("rust-analyzer"))
    optionalMissing.push("rust-analyzer (rustup component add failed)");
} else {
  optionalMissing.push("rust-analyzer (no rustup)");
}

if (has("clangd")) {
  log("clangd present");
} else if (process.getuid?.() === 0 && has("apt-get", ["--version"])) {
  log("installing clangd from Debian (apt-get)");
  run("apt-get", ["update", "-qq"]);
  run("apt-get", ["install", "-y", "-qq", "clangd"]);
} else {
  optionalMissing.push("clangd (not root, or no apt-get: install it with your package manager)");
}

// 4. Required components, checked after installing: in CI a missing one fails the run instead of skipping tests.
const required = [
  ["@modelcontextprotocol/sdk", "node_modules/@modelcontextprotocol/sdk/package.json"],
  ["tsx", "node_modules/.bin/tsx"],
  ["vitest", "node_modules/.bin/vitest"],
  ["pyright", "node_modules/.bin/pyright-langserver"],
  ["typescript-language-server", "node_modules/.bin/typescript-language-server"],
  ["deno (Deno's Jupyter kernel)", "node_modules/.bin/deno"],
];
const missing = required.filter(([, file]) => !existsSync(path.join(root, file))).map(([name]) => name);
if (missing.length) fail(`missing after install: ${missing.join(", ")}${inCI ? " (required in CI)" : ""}`);
if (optionalMissing.length) {
  const message = `not installed: ${optionalMissing.join("; ")}`;
  if (inCI) fail(`${message} — required in CI, where the lsp tests run against them`);
  log(`${message}; the lsp tests that need them will fail until it is`);
}
log("ready");
