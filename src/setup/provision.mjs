// @ts-check
// `runbound setup [--only LIST] [--home DIR]`: installs the components runbound manages into its home, each only
// when it is not there already, with a line per component (what, where, how long) and a closing table.
import { mkdirSync } from "node:fs";
import { COMPONENTS, setupCommand } from "./components.mjs";
import { defaultHome } from "./home.mjs";

/**
 * @typedef {{ id: string, state: "present" | "installed" | "failed", version: string, where: string, note?: string }} Outcome
 */

/**
 * @param {{ home?: string, only?: string[], log?: (line: string) => void }} [options]
 * @returns {{ home: string, outcomes: Outcome[] }}
 */
export function provision(options = {}) {
  const home = options.home ?? defaultHome();
  const log = options.log ?? ((line) => console.log(`setup: ${line}`));
  const only = options.only ?? COMPONENTS.map((c) => c.id);
  const unknown = only.filter((id) => !COMPONENTS.some((c) => c.id === id));
  if (unknown.length)
    throw new Error(
      `--only ${unknown.join(",")}: no such component; choose from ${COMPONENTS.map((c) => c.id).join(", ")}`,
    );
  mkdirSync(home, { recursive: true });
  const root = process.getuid?.() === 0;
  /** @type {Outcome[]} */
  const outcomes = [];
  for (const component of COMPONENTS.filter((c) => only.includes(c.id))) {
    const started = Date.now();
    const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    const before = component.check(home);
    if (before) {
      log(`${component.id}: present, ${before.version} at ${before.where} (${elapsed()})`);
      outcomes.push({ id: component.id, state: "present", ...before });
      continue;
    }
    log(`${component.id}: installing ${component.what}`);
    const failure = component.install({ home, log: (line) => log(`${component.id}: ${line}`), root });
    const after = failure ? undefined : component.check(home);
    if (after) {
      log(`${component.id}: installed, ${after.version} at ${after.where} (${elapsed()})`);
      outcomes.push({ id: component.id, state: "installed", ...after });
    } else {
      const note = failure ?? "installed, but its check still fails";
      log(`${component.id}: not installed — ${note} (${elapsed()})`);
      outcomes.push({ id: component.id, state: "failed", version: "", where: "", note });
    }
  }
  return { home, outcomes };
}

/**
 * The closing table: one row per component.
 * @param {Outcome[]} outcomes
 */
export function outcomeTable(outcomes) {
  const rows = [
    ["component", "state", "version", "where"],
    ...outcomes.map((o) => [o.id, o.state, o.version, o.where || (o.note ?? "")]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) => r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell)).join("  "))
    .join("\n");
}

/**
 * The command line: parses `--only a,b` and `--home DIR`, runs, prints the table. Exit code 1 when a component
 * that was asked for by name (or any, with `strict`) could not be installed.
 * @param {string[]} argv
 * @param {{ strict?: boolean }} [options]
 * @returns {number}
 */
export function setupMain(argv, options = {}) {
  /** @type {string[] | undefined} */
  let only;
  /** @type {string | undefined} */
  let home;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--only") only = (value() ?? "").split(",").filter(Boolean);
    else if (flag === "--home") home = value();
    else if (flag === "--help" || flag === "-h") {
      console.log(
        `usage: runbound setup [--only ${COMPONENTS.map((c) => c.id).join(",")}] [--home DIR]\n` +
          COMPONENTS.map((c) => `  ${c.id.padEnd(14)} ${c.what}: ${c.serves}`).join("\n"),
      );
      return 0;
    } else {
      console.error(
        `setup: unknown argument "${arg}"; use --only LIST and --home DIR (runbound setup --help)`,
      );
      return 2;
    }
  }
  if (only?.length === 0) {
    console.error(`setup: --only needs a list, e.g. ${setupCommand("python")}`);
    return 2;
  }
  let result;
  try {
    result = provision({ ...(home ? { home } : {}), ...(only ? { only } : {}) });
  } catch (error) {
    console.error(`setup: ${/** @type {Error} */ (error).message}`);
    return 2;
  }
  console.log(`\nrunbound home: ${result.home}\n${outcomeTable(result.outcomes)}`);
  const failed = result.outcomes.filter((o) => o.state === "failed");
  if (failed.length && (only || options.strict)) return 1;
  if (failed.length)
    console.log(
      `\n${failed.length} not installed; the tools they serve say so. Run again with --only ${failed.map((o) => o.id).join(",")} once the cause is fixed.`,
    );
  return 0;
}
