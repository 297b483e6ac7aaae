/**
 * runbound's tools in the Claude Agent SDK (`runbound/claude-agent-sdk`): the run's McpServer for a surface, in
 * process; Claude Code's own built-in tools switched off.
 *
 *   const run = await createRun({ workdir, approver: "always" });
 *   console.log(await runClaudeAgent(run, "Rename Stock.add to insert"));
 *
 * Needs the Claude Code runtime the SDK starts and ANTHROPIC_API_KEY; type-checked in CI, not run there.
 */
import { query } from "@anthropic-ai/claude-agent-sdk";
import { runboundServer } from "../src/adapters/claude-agent-sdk.js";
import type { Run, Surface } from "../src/index.js";

export async function runClaudeAgent(run: Run, prompt: string, surface: Surface = "full"): Promise<string> {
  const { mcpServers, allowedTools } = await runboundServer(run, surface);
  const messages = query({ prompt, options: { cwd: run.workdir, tools: [], mcpServers, allowedTools } });
  for await (const message of messages) {
    if (message.type === "result") {
      if (message.subtype === "success") return message.result;
      throw new Error(`the agent stopped: ${message.subtype}`);
    }
  }
  throw new Error("the agent ended without a result");
}
