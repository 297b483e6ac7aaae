/**
 * The private link: the only way runbound's tools are reached. An McpServer and an MCP SDK Client joined by an
 * in-memory transport pair inside this process — no stdio, no HTTP, no socket; nothing listens.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  CallToolResultSchema,
  JSONRPCMessage,
  MessageExtraInfo,
  Notification,
  Request,
  Result,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { z } from "zod";

export interface PrivateLink {
  readonly client: Client;
  /** Closes both ends. */
  close(): Promise<void>;
}

/*
 * Every result on this link was made by runbound's gate in this process, and checked there against the tool's output
 * schema (with the SDK's own Ajv validator) before it was sent; the in-memory transport hands the object over as is.
 * A stock Client parses it again with zod and validates it again with Ajv: ~0.05–0.08 ms a call between I/O
 * (measured on a 3.4 ms lldb step), for the same answer. The link's client skips both; a harness that passes its
 * own result schema to callTool still gets that schema applied.
 */
const CHECKED_BY_THE_GATE: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};
const AS_THE_GATE_MADE_IT = z.custom<CallToolResult>() as unknown as typeof CallToolResultSchema;

class LinkedClient extends Client {
  override callTool(
    ...[params, resultSchema = AS_THE_GATE_MADE_IT, options]: Parameters<Client["callTool"]>
  ): ReturnType<Client["callTool"]> {
    return super.callTool(params, resultSchema, options);
  }
}

export async function linkPrivately(
  server: McpServer,
  clientInfo: { name: string; version: string },
): Promise<PrivateLink> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new LinkedClient(clientInfo, { capabilities: {}, jsonSchemaValidator: CHECKED_BY_THE_GATE });
  await client.connect(clientEnd);
  routeByShape(server.server, serverEnd);
  routeByShape(client, clientEnd);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** What Protocol.connect leaves out of its public type: the routes it picks between. */
interface Routes {
  _onrequest?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  _onresponse?: (message: JSONRPCMessage) => void;
}

/*
 * Protocol.connect tells a message's kind by zod-parsing it against each kind in turn: a request is first parsed as
 * a result and as an error, and both fail — building zod errors each time, 35–85 µs a call while the code is not yet
 * optimized (an agent's calls come seconds apart, so it rarely is). On this link every message was built by the SDK
 * in this process, so its kind shows in its keys. Anything else still takes the SDK's own way.
 */
function routeByShape(protocol: Protocol<Request, Notification, Result>, end: InMemoryTransport): void {
  const routes = protocol as unknown as Routes;
  const guarded = end.onmessage;
  const onRequest = routes._onrequest;
  const onResponse = routes._onresponse;
  if (!guarded || typeof onRequest !== "function" || typeof onResponse !== "function") return;
  end.onmessage = (message, extra) => {
    if ("method" in message && "id" in message) onRequest.call(protocol, message, extra);
    else if ("id" in message && ("result" in message || "error" in message) && !("method" in message))
      onResponse.call(protocol, message);
    else guarded(message, extra);
  };
}
