/**
 * The kernel side of the tool() bridge: the code each kernel runs first, which defines `tool(name, args)` as a
 * request over the kernel's stdin channel (answered by the cell's bridge in cell.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../home.js";
import { BRIDGE_PREFIX } from "./cell.js";
import type { JavaScriptKernel, KernelLanguage } from "./schema.js";

/** The prelude of a kernel: Python's lives in python/kernel-prelude.py (shipped with the package). */
export function prelude(language: KernelLanguage, javascript: JavaScriptKernel): string {
  const prefix = JSON.stringify(BRIDGE_PREFIX);
  if (language === "python")
    return readFileSync(path.join(packageRoot(), "python", "kernel-prelude.py"), "utf8").replaceAll(
      "__RUNBOUND_BRIDGE_PREFIX__",
      prefix,
    );
  // Deno's prompt() waits for the answer; Node's kernel asks through input(), a promise: `await tool(…)`.
  const ask =
    javascript === "deno"
      ? `prompt(${prefix} + JSON.stringify({ name, args }))`
      : `await input(${prefix} + JSON.stringify({ name, args }))`;
  return `
globalThis.tool = ${javascript === "deno" ? "" : "async "}(name, args = {}) => {
  const reply = JSON.parse(${ask});
  if ("error" in reply) throw new Error(reply.error);
  return reply.result;
};
`;
}
