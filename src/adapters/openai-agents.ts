/**
 * `runbound/openai-agents`: runbound's tools in the OpenAI Agents SDK — an MCPServer whose transport is a private
 * link to the run, so the SDK lists and calls runbound's tools without a process or a socket, and every call passes
 * runbound's gate. Nothing of the SDK is loaded here (its types only).
 *
 *   import { RunboundMcpServer } from "runbound/openai-agents";
 *   const agent = new Agent({ name: "coder", instructions: "…", mcpServers: [new RunboundMcpServer(run, "full")] });
 */
import type { CallToolResultContent, MCPServer } from "@openai/agents";
import type { Run } from "../run.js";
import type { RunLink } from "../run-link.js";
import type { Surface } from "../surfaces.js";

/** The SDK's tool listing type (not exported by name). */
type MCPTool = Awaited<ReturnType<MCPServer["listTools"]>>[number];

export class RunboundMcpServer implements MCPServer {
  readonly name = "runbound";
  cacheToolsList = true;
  readonly #run: Run;
  readonly #surface: Surface;
  #client: RunLink | undefined;

  constructor(run: Run, surface: Surface) {
    this.#run = run;
    this.#surface = surface;
  }

  async connect(): Promise<void> {
    this.#client ??= await this.#run.link({
      surface: this.#surface,
      clientInfo: { name: "openai-agents", version: "1" },
    });
  }

  async close(): Promise<void> {
    await this.#client?.close();
    this.#client = undefined;
  }

  async listTools(): Promise<MCPTool[]> {
    const { tools } = await this.#connected().listTools();
    return tools.map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      inputSchema: {
        type: "object",
        properties: t.inputSchema.properties ?? {},
        required: t.inputSchema.required ?? [],
        additionalProperties: false,
      },
    }));
  }

  async callTool(
    toolName: string,
    args: Record<string, unknown> | null,
    _meta?: Record<string, unknown> | null,
    options?: { signal?: AbortSignal },
  ): Promise<CallToolResultContent> {
    // The run's signal cancels the tool's call (an eval cell is interrupted); progress keeps a long one alive.
    const result = await this.#connected().callTool(
      { name: toolName, arguments: args ?? {} },
      {
        ...(options?.signal ? { signal: options.signal } : {}),
        onprogress: () => {},
        resetTimeoutOnProgress: true,
      },
    );
    return result.content as unknown as CallToolResultContent;
  }

  async invalidateToolsCache(): Promise<void> {}

  #connected(): RunLink {
    if (!this.#client)
      throw new Error("RunboundMcpServer: call connect() first (the Agents SDK does, via run())");
    return this.#client;
  }
}
