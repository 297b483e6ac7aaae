/**
 * How runbound starts its Node adapter (adapter.ts) and what a launch tells it: the Node that runs the harness runs
 * the adapter and the program; TypeScript runs through tsx — the project's, else runbound's home's — or, without
 * tsx, through Node's own type stripping where this Node has it.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { within } from "../../proc/bubblewrap.js";
import { setupCommand } from "../../setup/components.mjs";
import { homeLayout } from "../../setup/home.mjs";

export const NODE_EXTENSIONS = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"];
const TYPESCRIPT = /\.[cm]?ts$/i;

export interface NodeAdapterCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly detail: string;
  /** tsx's loader, when one was found for TypeScript programs. */
  readonly loader: string | undefined;
}

export function nodeAdapter(
  root: string,
  workdir: string,
  home: string,
  project: boolean,
): NodeAdapterCommand {
  // Installed, adapter.js is one bundled file (scripts/bundle-node-processes.mjs) beside runbound's other files, which
  // every sandbox shows; in a checkout, the source through tsx, its packages in the checkout's node_modules.
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = fileURLToPath(new URL(fromSource ? "./adapter.ts" : "./adapter.js", import.meta.url));
  const loader = tsxLoader(root, workdir, home, project);
  return {
    command: process.execPath,
    args: fromSource ? ["--import", import.meta.resolve("tsx/esm"), entry] : [entry],
    detail: `Node ${process.version} at ${process.execPath} (runbound's adapter on its inspector${loader ? `; TypeScript through tsx at ${path.dirname(loader.file)}` : ""})`,
    loader: loader?.url,
  };
}

/** What the adapter is told to launch: tsx's loader for TypeScript, or Node's type stripping, or why neither. */
export function nodeLaunchArguments(
  program: string,
  args: readonly string[],
  cwd: string,
  loader: string | undefined,
): Record<string, unknown> {
  const base = { type: "node", request: "launch", program, args, cwd };
  if (!TYPESCRIPT.test(program)) return { ...base, nodeArgs: [] };
  if (loader) return { ...base, nodeArgs: ["--import", loader] };
  const stripping = typeStripping();
  if (stripping) return { ...base, nodeArgs: stripping };
  return {
    ...base,
    nodeArgs: [],
    refused: `Node ${process.version} cannot run TypeScript by itself (type stripping came in Node 22.6), and no tsx was found: add it to the project (npm install -D tsx), or install runbound's: ${setupCommand("tsx")}`,
  };
}

/** Node's own TypeScript: on by default since 22.18 and 23.6, behind a flag since 22.6; none before. */
function typeStripping(): string[] | undefined {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 18)) return [];
  if (major === 23 || (major === 22 && minor >= 6)) return ["--experimental-strip-types"];
  return undefined;
}

/** The project's tsx (from the program's root up to the workdir), else the one in runbound's home. */
function tsxLoader(
  root: string,
  workdir: string,
  home: string,
  project: boolean,
): { file: string; url: string } | undefined {
  const places: string[] = [];
  if (project)
    for (let dir = root; within(dir, workdir); dir = path.dirname(dir)) {
      places.push(dir);
      if (dir === workdir) break;
    }
  places.push(homeLayout(home).npmPrefix);
  for (const dir of places) {
    if (!existsSync(path.join(dir, "node_modules", "tsx", "package.json"))) continue;
    try {
      const file = createRequire(path.join(dir, "package.json")).resolve("tsx");
      return { file, url: pathToFileURL(file).href };
    } catch {}
  }
  return undefined;
}
