/**
 * The private link: the only way runbound's tools are reached. An McpServer and an MCP SDK Client joined by an
 * in-memory transport pair inside this process — no stdio, no HTTP, no socket; nothing listens.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export interface PrivateLink {
  readonly client: Client;
  /** Closes both ends. */
  close(): Promise<void>;
}

export async function linkPrivately(
  server: McpServer,
  clientInfo: { name: string; version: string },
): Promise<PrivateLink> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client(clientInfo, { capabilities: {} });
  await client.connect(clientEnd);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
