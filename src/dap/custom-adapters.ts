/**
 * Debug adapters of the harness's own (`createRun({ debug: { adapters: [...] } })`): a command speaking DAP on
 * stdio, the program extensions and root markers it serves, and its launch arguments as a template — usable exactly
 * as the built-in ones. A configuration that cannot work is refused at createRun, naming the key.
 */
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { onPath } from "../setup/components.mjs";
import type { AdapterSpec } from "./adapters.js";

export interface AdapterConfig {
  /** How answers and `adapters` name it; unique, and not a built-in's (debugpy, delve, lldb, dart). */
  readonly id: string;
  /** The adapter's executable: an absolute path, or a name looked up on PATH. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Program extensions it debugs (".zig", or "" for a binary without one); it is chosen before the built-ins. */
  readonly extensions: readonly string[];
  /** Files that mark a project root for it; none: any folder of the workdir. */
  readonly rootMarkers?: readonly string[];
  /**
   * The launch request's arguments. "${program}", "${cwd}" are replaced in every string; a value that is exactly
   * "${args}" becomes the program's arguments (a list).
   */
  readonly launch: Readonly<Record<string, unknown>>;
}

const KEYS = ["id", "command", "args", "extensions", "rootMarkers", "launch"];
const BUILT_IN = ["debugpy", "delve", "lldb", "node", "dart"];

/** Checks every configuration (a TypeError naming the adapter and the key) and makes them adapter specs. */
export function customAdapters(configs: readonly AdapterConfig[]): AdapterSpec[] {
  if (!Array.isArray(configs)) throw new TypeError("debug.adapters must be a list of adapter configurations");
  const seen = new Set<string>();
  return configs.map((config, i) => {
    const where = `debug.adapters[${i}]`;
    const fail = (message: string): never => {
      throw new TypeError(`${where}${typeof config?.id === "string" ? ` ("${config.id}")` : ""}: ${message}`);
    };
    if (!config || typeof config !== "object")
      fail("must be an object with id, command, extensions and launch");
    for (const key of Object.keys(config))
      if (!KEYS.includes(key)) fail(`unknown key \`${key}\` (the keys are ${KEYS.join(", ")})`);
    if (typeof config.id !== "string" || !/^[a-z0-9][a-z0-9._-]*$/i.test(config.id))
      fail("`id` must be a name of letters, digits, dots, dashes or underscores");
    if (BUILT_IN.includes(config.id) || seen.has(config.id))
      fail(
        `\`id\` "${config.id}" is taken (${BUILT_IN.includes(config.id) ? "a built-in adapter" : "an earlier entry"})`,
      );
    seen.add(config.id);
    if (typeof config.command !== "string" || config.command === "")
      fail("`command` must be the adapter's executable");
    if (config.args !== undefined && !strings(config.args)) fail("`args` must be a list of strings");
    if (!strings(config.extensions) || config.extensions.some((e: string) => !/^(\.[\w.-]+)?$/.test(e)))
      fail('`extensions` must be a list like [".zig"] ("" for binaries without one)');
    if (config.rootMarkers !== undefined && !strings(config.rootMarkers))
      fail("`rootMarkers` must be a list of file names");
    if (!config.launch || typeof config.launch !== "object" || Array.isArray(config.launch))
      fail(
        '`launch` must be the launch request\'s arguments, e.g. { "program": "${program}", "args": "${args}" }',
      );
    if (!JSON.stringify(config.launch).includes("${program}"))
      fail('`launch` never names "${program}": the adapter would not know what to run');
    return specOf(config);
  });
}

function strings(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

function specOf(config: AdapterConfig): AdapterSpec {
  return {
    id: config.id,
    name: config.id,
    rootMarkers: config.rootMarkers ?? [],
    extensions: config.extensions,
    install: `install ${config.command} (the harness's createRun({ debug: { adapters } }) names it)`,
    resolve() {
      const command = path.isAbsolute(config.command) ? config.command : onPath(config.command);
      if (!command || !runnable(command))
        return {
          missing: `${config.command} was not found${path.isAbsolute(config.command) ? "" : " on PATH"} or is not executable`,
        };
      return {
        id: config.id,
        command,
        args: config.args ?? [],
        transport: "stdio",
        detail: `${config.id} (the harness's adapter) at ${command}`,
      };
    },
    launchArguments: (program, args, cwd) => ({
      ...(fill(config.launch, { program, cwd, args }) as Record<string, unknown>),
      request: "launch",
    }),
  };
}

function runnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The template with ${program} and ${cwd} replaced in its strings, and "${args}" values made the argument list. */
function fill(value: unknown, vars: { program: string; cwd: string; args: readonly string[] }): unknown {
  if (value === "${args}") return [...vars.args];
  if (typeof value === "string")
    return value.replaceAll("${program}", vars.program).replaceAll("${cwd}", vars.cwd);
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  return value;
}
