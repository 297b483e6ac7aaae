/**
 * A link's public face: what a harness calls on `run.link()`. runbound's own interface, so the public API does not
 * change with the MCP SDK's majors; the SDK client underneath stays reachable as `client`.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { ListedTool, Progress, ToolResult } from "./tool-result.js";

export interface CallToolParams {
  /** A tool the link's surface lists. */
  name: string;
  arguments?: Record<string, unknown>;
}

export interface CallToolOptions {
  /** Aborting it cancels the call: the tool stops (an eval cell is interrupted) and the call rejects. */
  signal?: AbortSignal;
  /** Milliseconds without an answer before the call rejects (default 60,000, as MCP clients have it). */
  timeout?: number;
  /** Progress of a long call; with it, the tool reports what it does as it goes. */
  onprogress?: (progress: Progress) => void;
  /** Each progress update restarts `timeout` (a long eval that reports is not cut off). */
  resetTimeoutOnProgress?: boolean;
  /** With resetTimeoutOnProgress: the most a call may take however often it reports. */
  maxTotalTimeout?: number;
}

/** A private in-memory link to a run's tools, for one surface. Nothing listens; it ends with the run. */
export interface RunLink {
  /** The tools the surface lists, with their schemas and annotations. */
  listTools(): Promise<{ tools: ListedTool[] }>;
  callTool(params: CallToolParams, options?: CallToolOptions): Promise<ToolResult>;
  /** Calls `listener` when the surface lists a tool added after linking; returns its removal. */
  onToolsChanged(listener: () => void): () => void;
  /** Called once when the link closes (by `close()` or the run's dispose). */
  onclose?: () => void;
  /** The protocol version negotiated on the link. */
  readonly protocolVersion: string | undefined;
  /** Closes the link; calls in flight reject. */
  close(): Promise<void>;
  /** The MCP SDK (v2) client underneath, for what this interface does not cover. */
  readonly client: Client;
}
