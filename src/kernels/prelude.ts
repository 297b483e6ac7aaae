/**
 * The kernel side of the tool() bridge: the code each kernel runs first, which defines `tool(name, args)` as a
 * request over the kernel's stdin channel (answered by the cell's bridge in cell.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../home.js";
import { BRIDGE_PREFIX } from "./cell.js";
import type { KernelLanguage } from "./schema.js";

/** The prelude of each kernel: Python's lives in python/kernel-prelude.py (shipped with the package). */
export const PRELUDE: Record<KernelLanguage, () => string> = {
  python: () =>
    readFileSync(path.join(packageRoot(), "python", "kernel-prelude.py"), "utf8").replaceAll(
      "__RUNBOUND_BRIDGE_PREFIX__",
      JSON.stringify(BRIDGE_PREFIX),
    ),
  javascript: () => `
globalThis.tool = (name, args = {}) => {
  const reply = JSON.parse(prompt(${JSON.stringify(BRIDGE_PREFIX)} + JSON.stringify({ name, args })));
  if ("error" in reply) throw new Error(reply.error);
  return reply.result;
};
`,
};
