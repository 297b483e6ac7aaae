/**
 * The private link: the only way runbound's tools are reached. An MCP SDK client and the run's MCP handler joined
 * inside this process — no stdio, no socket; nothing listens. They speak protocol 2026-07-28: the SDK serves that
 * version through its web-standard request handler (one server instance per request), so the client's transport
 * is given a `fetch` that hands each request to the handler in-process.
 */
import {
  Client,
  type jsonSchemaValidator,
  type McpSubscription,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { createMcpHandler, type McpHttpHandler, type McpServer } from "@modelcontextprotocol/server";
import type { CallToolOptions, CallToolParams, RunLink } from "../src/run-link.js";
import type { ListedTool, ToolResult } from "../src/tool-result.js";

/** The protocol version the link negotiates (it fails loudly if the SDK ever stops offering it). */
export const LINK_PROTOCOL_VERSION = "2026-07-28";

/** A name that resolves nowhere (RFC 2606): requests are handed to the handler, never sent. */
const LINK_URL = new URL("http://runbound.invalid/mcp");

/*
 * A request body is a call's arguments: the gate bounds what a tool takes and answers a huge argument with its
 * length. The handler's default 4 MiB would refuse a large `write` before the gate saw it, with an HTTP status.
 */
const MAX_BODY_BYTES = 1024 * 1024 * 1024;

/*
 * Every result on this link was made by runbound's gate in this process, and checked there against the tool's output
 * schema (with the SDK's own Ajv validator) before it was sent. The client would validate it again with Ajv, for the
 * same answer: the link's client skips that.
 */
const CHECKED_BY_THE_GATE: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input, errorMessage: undefined }) as never,
};

/** What the run hands a link: a fresh server of the surface per request, and news of tools added to it. */
export interface LinkSource {
  readonly serve: () => McpServer;
  /** Calls `listener` when a tool the surface lists is added; returns its removal. */
  readonly onToolAdded: (listener: () => void) => () => void;
  /** The run's bookkeeping when the link ends, told before the harness's `onclose`. */
  readonly onEnd: () => void;
}

class PrivateLink implements RunLink {
  readonly client: Client;
  onclose?: () => void;
  readonly #handler: McpHttpHandler;
  readonly #onEnd: () => void;
  readonly #stopAdding: () => void;
  readonly #listeners = new Set<() => void>();
  readonly #subscription: McpSubscription;
  #closed = false;

  constructor(client: Client, handler: McpHttpHandler, subscription: McpSubscription, source: LinkSource) {
    this.client = client;
    this.#handler = handler;
    this.#subscription = subscription;
    this.#onEnd = source.onEnd;
    this.#stopAdding = source.onToolAdded(() => handler.notify.toolsChanged());
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      for (const listener of [...this.#listeners]) listener();
    });
    client.onclose = () => this.#ended();
  }

  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  async listTools(): Promise<{ tools: ListedTool[] }> {
    const { tools } = await this.client.listTools();
    return { tools: tools as ListedTool[] };
  }

  async callTool(params: CallToolParams, options?: CallToolOptions): Promise<ToolResult> {
    return (await this.client.callTool(params, options)) as ToolResult;
  }

  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#subscription.close().catch(() => undefined);
    await this.client.close();
    await this.#handler.close();
    this.#ended();
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    this.#stopAdding();
    this.#onEnd();
    this.onclose?.();
  }
}

export async function linkPrivately(
  source: LinkSource,
  clientInfo: { name: string; version: string },
): Promise<RunLink> {
  const handler = createMcpHandler(() => source.serve(), {
    legacy: "reject",
    maxRequestBodySize: MAX_BODY_BYTES,
    // No keepalive frames: nothing sits between the two ends that could time a quiet stream out.
    keepAliveMs: 0,
  });
  const transport = new StreamableHTTPClientTransport(LINK_URL, {
    fetch: (url, init) => handler.fetch(new Request(url, init)),
  });
  const client = new Client(clientInfo, {
    capabilities: {},
    jsonSchemaValidator: CHECKED_BY_THE_GATE,
    versionNegotiation: { mode: { pin: LINK_PROTOCOL_VERSION } },
  });
  await client.connect(transport);
  // Under 2026-07-28 change notifications come on a subscription stream, open before the link is handed out so a
  // tool registered right after linking is not missed.
  const subscription = await client.listen({ toolsListChanged: true });
  return new PrivateLink(client, handler, subscription, source);
}
