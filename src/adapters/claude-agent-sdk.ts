/**
 * `runbound/claude-agent-sdk`: runbound's tools in the Claude Agent SDK as an in-process SDK MCP server, so calls
 * never leave the process and pass runbound's gate (its approver or permission cards decide writes and runs). The
 * Claude Agent SDK takes a v1 McpServer (`@modelcontextprotocol/sdk`, which it depends on): this adapter makes one
 * whose tools/list and tools/call are answered through a private link to the run. Nothing of the Claude SDK is
 * loaded here.
 *
 *   import { runboundServer } from "runbound/claude-agent-sdk";
 *   const { mcpServers, allowedTools } = await runboundServer(run, "full");
 *   query({ prompt, options: { cwd: run.workdir, tools: [], mcpServers, allowedTools } });
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Run } from "../run.js";
import type { RunLink } from "../run-link.js";
import type { Surface } from "../surfaces.js";
import { VERSION } from "../version.js";

/** What `query`'s options take: the server config under `name`, and the names of its tools to allow. */
export interface RunboundServerOptions {
  readonly mcpServers: Record<string, { type: "sdk"; name: string; instance: McpServer }>;
  /** `mcp__<name>__<tool>` for each tool the surface lists: runbound's gate asks for approval itself. */
  readonly allowedTools: string[];
}

export async function runboundServer(
  run: Run,
  surface: Surface,
  name = "runbound",
): Promise<RunboundServerOptions> {
  const v1 = await loadV1();
  return {
    mcpServers: { [name]: { type: "sdk", name, instance: v1Server(v1, run, surface) } },
    allowedTools: run.tools(surface).map((tool) => `mcp__${name}__${tool}`),
  };
}

/** The host's client times its calls out and cancels them; the link's own timeout must not cut one short first. */
const NO_TIMEOUT_OF_ITS_OWN = 2 ** 31 - 1;

interface V1 {
  readonly McpServer: typeof import("@modelcontextprotocol/sdk/server/mcp.js").McpServer;
  readonly types: typeof import("@modelcontextprotocol/sdk/types.js");
}

/** The v1 SDK the Claude Agent SDK brought (its dependency, runbound's optional peer). */
async function loadV1(): Promise<V1> {
  try {
    const [{ McpServer }, types] = await Promise.all([
      import("@modelcontextprotocol/sdk/server/mcp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    return { McpServer, types };
  } catch (error) {
    throw new Error(
      "runbound/claude-agent-sdk needs @modelcontextprotocol/sdk 1.x, which @anthropic-ai/claude-agent-sdk depends on: " +
        "install @anthropic-ai/claude-agent-sdk in this project (with pnpm, add @modelcontextprotocol/sdk too)",
      { cause: error },
    );
  }
}

/** A v1 McpServer for `surface`, linked to the run when the host first lists or calls (the link ends with it). */
function v1Server({ McpServer, types }: V1, run: Run, surface: Surface): McpServer {
  const server = new McpServer(
    { name: "runbound", version: VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  let link: Promise<RunLink> | undefined;
  const linked = () => {
    link ??= run.link({ surface, clientInfo: { name: "claude-agent-sdk", version: VERSION } }).then((l) => {
      l.onToolsChanged(() => void server.sendToolListChanged());
      return l;
    });
    return link;
  };
  server.server.setRequestHandler(types.ListToolsRequestSchema, async () => (await linked()).listTools());
  server.server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta } = request.params;
    const token = _meta?.progressToken;
    return (await linked()).callTool(
      { name, ...(args ? { arguments: args } : {}) },
      {
        signal: extra.signal,
        timeout: NO_TIMEOUT_OF_ITS_OWN,
        ...(token === undefined
          ? {}
          : {
              onprogress: (progress) =>
                void extra
                  .sendNotification({
                    method: "notifications/progress",
                    params: { progressToken: token, ...progress },
                  })
                  .catch(() => undefined),
            }),
      },
    );
  });
  server.server.onclose = () => void link?.then((l) => l.close()).catch(() => undefined);
  return server;
}
