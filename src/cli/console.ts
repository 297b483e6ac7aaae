/**
 * An interactive console for a person: link a client on a surface and call any tool by hand. Arguments are JSON
 * (`read {"path":"a.txt"}`) or key=value pairs (`read path=a.txt offset=3`); `key=<<` reads a multi-line value
 * up to a line with a single ".". Questions and permission cards appear on the same terminal.
 */

import { LineReader } from "../questions/lines.js";
import { TerminalQuestionPort } from "../questions/terminal.js";
import { createRun } from "../run.js";
import type { RunLink } from "../run-link.js";
import { isSurface, SURFACES, type Surface } from "../surfaces.js";
import { commandBackend } from "../vibe/command.js";
import { renderResult } from "./render.js";

const HELP = `commands:
  tools                      list the tools this surface sees
  schema <tool>              show a tool's description and input schema
  <tool> {json}              call a tool with JSON arguments
  <tool> key=value ...       call with key=value pairs (values parsed as JSON when they are, else text),
                             quoted as in a shell: key='two words' key="say \\"hi\\"" (no $ expansion);
                             key=<< reads a multi-line value until a line with a single "."
                             e.g. lsp action=definition file=ts/src/main.ts line=4 symbol=stock.add
  surface <full|plan|readonly>  relink on another surface
  help, exit`;

export async function runConsole(options: {
  workdir: string;
  surface: Surface;
  worker?: string;
}): Promise<void> {
  const lines = new LineReader(process.stdin, process.stdout);
  const port = new TerminalQuestionPort({ lines, output: process.stdout });
  const run = await createRun({
    workdir: options.workdir,
    conversationId: "console",
    questions: { port, space: "console" },
    // --worker: one shell command serves both tiers, enough to try vibe_* by hand.
    ...(options.worker ? { vibe: workerTiers(options.worker) } : {}),
  });
  let surface = options.surface;
  let client: RunLink = await run.link({ surface });
  console.log(
    `runbound console — workdir ${run.workdir}, surface ${surface}, approvals: ${run.approvals.mode}. Type help.`,
  );
  try {
    for (;;) {
      let line: string;
      try {
        line = (await lines.read(`${surface}> `)).trim();
      } catch {
        break;
      }
      if (!line || line.startsWith("#")) continue;
      const [command = "", ...rest] = line.split(/\s+/);
      const tail = line.slice(command.length).trim();
      if (command === "exit" || command === "quit") break;
      if (command === "help") {
        console.log(HELP);
      } else if (command === "tools") {
        const { tools } = await client.listTools();
        for (const t of tools) console.log(`  ${t.name.padEnd(12)} ${t.title ?? ""}`);
      } else if (command === "schema") {
        const { tools } = await client.listTools();
        const tool = tools.find((t) => t.name === rest[0]);
        if (!tool) console.log(`no tool "${rest[0] ?? ""}" on this surface; type tools`);
        else console.log(`${tool.description}\n${JSON.stringify(tool.inputSchema, null, 2)}`);
      } else if (command === "surface") {
        const next = rest[0];
        if (!isSurface(next)) {
          console.log(`unknown surface "${next ?? ""}"; use one of ${SURFACES.join(", ")}`);
        } else {
          await client.close();
          surface = next;
          client = await run.link({ surface });
          console.log(`now on ${surface}`);
        }
      } else {
        const args = await parseArguments(tail, () => lines.read("... "));
        if ("error" in args) {
          console.log(args.error);
          continue;
        }
        const result = await client.callTool({ name: command, arguments: args.value });
        console.log(renderResult(result as Parameters<typeof renderResult>[0]));
      }
    }
  } finally {
    await run.dispose();
    lines.close();
  }
}

/** JSON object, or key=value pairs with `key=<<` heredocs read through `nextLine`. */
export async function parseArguments(
  text: string,
  nextLine: () => Promise<string>,
): Promise<{ value: Record<string, unknown> } | { error: string }> {
  if (text === "") return { value: {} };
  if (text.startsWith("{")) {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === "object" && !Array.isArray(value))
        return { value: value as Record<string, unknown> };
      return { error: "arguments must be a JSON object" };
    } catch (error) {
      return { error: `arguments are not valid JSON: ${(error as Error).message}` };
    }
  }
  const words = shellWords(text);
  if ("error" in words) return words;
  const value: Record<string, unknown> = {};
  for (const pair of words.words) {
    const eq = pair.indexOf("=");
    if (eq <= 0)
      return { error: `"${pair}" is not key=value; give JSON or key=value pairs (quote values with spaces)` };
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    if (raw === "<<") {
      const lines: string[] = [];
      for (let line = await nextLine(); line !== "."; line = await nextLine()) lines.push(line);
      value[key] = `${lines.join("\n")}\n`;
      continue;
    }
    try {
      value[key] = JSON.parse(raw);
    } catch {
      value[key] = raw;
    }
  }
  if (Object.keys(value).length === 0)
    return { error: `cannot read "${text}" as arguments; give JSON or key=value pairs` };
  return { value };
}

/**
 * A line split into words as a shell splits it: '…' keeps everything, "…" keeps all but backslash escapes, a
 * backslash outside quotes escapes the next character. No `$` expansion: metavariables stay as typed.
 */
export function shellWords(text: string): { words: string[] } | { error: string } {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  const add = (piece: string) => {
    word = (word ?? "") + piece;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else add(c);
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && next !== undefined && '"\\$`'.includes(next)) add(text[++i]!);
      else add(c);
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      add("");
    } else if (c === "\\" && next !== undefined) add(text[++i]!);
    else add(c);
  }
  if (quote) return { error: `a ${quote === "'" ? "single" : "double"} quote is not closed` };
  if (word !== undefined) words.push(word);
  return { words };
}

function workerTiers(command: string) {
  // The person typing at the console chose the command, for whichever surface they relink to.
  const backend = commandBackend("sh", ["-c", command], { surfaces: ["full", "plan", "readonly"] });
  return { fast: backend, good: backend };
}
