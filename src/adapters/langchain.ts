/**
 * `runbound/langchain`: a link's tools as LangChain tools, through LangChain's own MCP adapter
 * (`@langchain/mcp-adapters`, loaded when used). That adapter takes an MCP SDK v1 client; a link is runbound's own
 * interface, so it gets a client of that shape which calls through the link — the gate, approvals and cancelling
 * (a run's `signal` in the call's config) as on any link.
 *
 *   import { langchainTools } from "runbound/langchain";
 *   const tools = await langchainTools(await run.link({ surface: "full" }));
 *   const agent = createAgent({ model, tools });
 */
import type { LoadMcpToolsOptions } from "@langchain/mcp-adapters";
import type { CallToolOptions, CallToolParams, RunLink } from "../run-link.js";

/** What one of LangChain's tools is (its type, without loading LangChain here). */
export type LangChainTool = Awaited<
  ReturnType<typeof import("@langchain/mcp-adapters").loadMcpTools>
>[number];

/** Options of LangChain's `loadMcpTools`; tools are named as the surface lists them unless a prefix is asked for. */
export type LangChainToolsOptions = LoadMcpToolsOptions;

export async function langchainTools(
  link: RunLink,
  options?: LangChainToolsOptions,
): Promise<LangChainTool[]> {
  const { loadMcpTools } = await loadAdapters();
  return loadMcpTools("runbound", asV1Client(link) as never, options);
}

/**
 * The two calls LangChain's adapter makes of a client, on v1's signatures: `callTool(params, resultSchema,
 * options)` — its second argument, a v1 result schema, is not used (the gate checked the result).
 */
function asV1Client(link: RunLink) {
  return {
    listTools: () => link.listTools(),
    callTool: (params: CallToolParams, _resultSchema?: unknown, options?: CallToolOptions) =>
      link.callTool(params, options),
  };
}

async function loadAdapters(): Promise<typeof import("@langchain/mcp-adapters")> {
  try {
    return await import("@langchain/mcp-adapters");
  } catch (error) {
    throw new Error(
      "runbound/langchain needs LangChain's MCP adapter: install @langchain/mcp-adapters (1.x) and @langchain/core",
      { cause: error },
    );
  }
}
