/**
 * runbound's tools in the Claude Agent SDK, as an in-process SDK MCP server: the run's McpServer for a surface is
 * handed over as is, so calls never leave the process and go through runbound's gate (its approver or permission
 * cards decide writes and runs; Claude Code's own built-in tools are switched off).
 *
 *   const run = await createRun({ workdir, approver: "always" });
 *   console.log(await runClaudeAgent(run, "Rename Stock.add to insert"));
 *
 * Needs the Claude Code runtime the SDK starts and ANTHROPIC_API_KEY; type-checked in CI, not run there.
 */
import { query } from "@anthropic-ai/claude-agent-sdk";
import type { Run, Surface } from "../src/index.js";

export async function runClaudeAgent(run: Run, prompt: string, surface: Surface = "full"): Promise<string> {
  const messages = query({
    prompt,
    options: {
      cwd: run.workdir,
      tools: [],
      mcpServers: { runbound: { type: "sdk", name: "runbound", instance: run.mcpServer({ surface }) } },
      // runbound's gate asks for approval itself; Claude Code need not ask again for its tools.
      allowedTools: run.tools(surface).map((name) => `mcp__runbound__${name}`),
    },
  });
  for await (const message of messages) {
    if (message.type === "result") {
      if (message.subtype === "success") return message.result;
      throw new Error(`the agent stopped: ${message.subtype}`);
    }
  }
  throw new Error("the agent ended without a result");
}
