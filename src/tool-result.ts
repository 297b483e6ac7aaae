/**
 * What a tool call answers and what a link lists, as runbound's own types: the shapes of MCP's tools/call result and
 * tools/list entry, without tying the public API to one MCP SDK major (their classes and zod-inferred types differ
 * between v1 and v2; these are what runbound sends on either).
 */

/** Text for the model. */
export interface TextBlock {
  type: "text";
  text: string;
  _meta?: Record<string, unknown>;
}

/** An image (base64): an eval plot, a displayed picture. */
export interface ImageBlock {
  type: "image";
  data: string;
  mimeType: string;
  _meta?: Record<string, unknown>;
}

/** Audio (base64). */
export interface AudioBlock {
  type: "audio";
  data: string;
  mimeType: string;
  _meta?: Record<string, unknown>;
}

/** A link to a resource the client may read. */
export interface ResourceLinkBlock {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
}

/** A resource's contents inline. */
export interface EmbeddedResourceBlock {
  type: "resource";
  resource:
    | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
    | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };
  _meta?: Record<string, unknown>;
}

export type ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock;

/** A tools/call result: what the model reads (`content`) and what the harness reads (`structuredContent`). */
export interface ToolResult {
  content: ContentBlock[];
  /** Matches the tool's output schema (absent on an error). */
  structuredContent?: Record<string, unknown>;
  /** true: the call failed; the text says what was wrong and what to do next. */
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** MCP's tool annotations: hints a host acts on (plan modes, parallel calls, approvals). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One tool as tools/list lists it. */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  /** JSON Schema (2020-12) of the arguments. */
  inputSchema: {
    type: "object";
    properties?: Record<string, unknown>;
    required?: string[];
    [key: string]: unknown;
  };
  /** JSON Schema (2020-12) of `structuredContent`. */
  outputSchema?: {
    type: "object";
    properties?: Record<string, unknown>;
    required?: string[];
    [key: string]: unknown;
  };
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

/** A progress update of a long call. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}
