/**
 * `runbound/claude-agent-sdk`: runbound's tools in the Claude Agent SDK as an in-process SDK MCP server — the run's
 * McpServer for a surface handed over as is, so calls never leave the process and pass runbound's gate (its approver
 * or permission cards decide writes and runs). Nothing of the SDK is loaded here.
 *
 *   import { runboundServer } from "runbound/claude-agent-sdk";
 *   const { mcpServers, allowedTools } = runboundServer(run, "full");
 *   query({ prompt, options: { cwd: run.workdir, tools: [], mcpServers, allowedTools } });
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Run } from "../run.js";
import type { Surface } from "../surfaces.js";

/** What `query`'s options take: the server config under `name`, and the names of its tools to allow. */
export interface RunboundServerOptions {
  readonly mcpServers: Record<string, { type: "sdk"; name: string; instance: McpServer }>;
  /** `mcp__<name>__<tool>` for each tool the surface lists: runbound's gate asks for approval itself. */
  readonly allowedTools: string[];
}

export function runboundServer(run: Run, surface: Surface, name = "runbound"): RunboundServerOptions {
  return {
    mcpServers: { [name]: { type: "sdk", name, instance: run.mcpServer({ surface }) } },
    allowedTools: run.tools(surface).map((tool) => `mcp__${name}__${tool}`),
  };
}
