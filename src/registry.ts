/**
 * Tool specs and the registry of one run. A spec is the whole contract of a tool (name, tier, schemas, the
 * description the model reads); `mount` puts the specs a surface may see on an McpServer, and routes every call
 * through the gate.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { ProcessTracker } from "./proc/tracker.js";
import type { ResourceKey, Resources } from "./resources.js";
import { type Caller, type Surface, surfaceSees, type Tier } from "./surfaces.js";

/** Who issued a call: the model over a link, a kernel cell through `tool()`, or a background worker. */
export type { Caller } from "./surfaces.js";

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolContext {
  readonly workdir: string;
  readonly surface: Surface;
  readonly caller: Caller;
  /** Aborted when the client cancels the call, the link closes, or the run is disposed. */
  readonly signal: AbortSignal;
  /** Reports progress to the client when it asked for it (a no-op otherwise). */
  progress(update: Progress): Promise<void>;
  /** Start child processes through this, so the run ends them (as trees) when it is disposed. */
  readonly processes: ProcessTracker;
  /**
   * Calls another tool of the run as this call's surface sees it (kernels' tool(), workers): the same gate, approvals
   * and after-write hooks as a model's call, with caller "bridge".
   */
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The wired resource; a tool only reaches this for keys it declared in `needs`. */
  use<K extends ResourceKey>(key: K): Resources[K];
}

export type ContentBlock = CallToolResult["content"][number];

export interface ToolOutput<S> {
  /** What the model reads: relative paths, 1-based lines, counts. */
  text: string;
  /** What the harness reads; must match the output schema. */
  structured: S;
  /** Workdir-relative paths this call wrote; they go through the run's after-write hooks. */
  written?: readonly string[];
  /** Further content blocks (images) shown after the text. */
  content?: readonly ContentBlock[];
}

type Shape = z.ZodRawShape;
type Infer<S extends Shape> = z.infer<z.ZodObject<S>>;

export interface ToolSpec<I extends Shape = Shape, O extends Shape = Shape> {
  readonly name: string;
  readonly title: string;
  readonly tier: Tier;
  /** Resources that must be wired for the tool to be registered at all. */
  readonly needs: readonly ResourceKey[];
  /** false → calls of this tool (and of tools sharing its lane) run one at a time per run. */
  readonly parallelSafe: boolean;
  /** The serialization lane for non-parallel-safe tools; defaults to the tool's name. */
  readonly lane?: string;
  /** true → the tool reports `written` paths, and its output gains the after-write hooks' fields. */
  readonly writes?: boolean;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  /** One line for a permission card: what this call would do. */
  describeCall?(args: Infer<I>): string;
  run(args: Infer<I>, ctx: ToolContext): Promise<ToolOutput<Infer<O>>>;
}

/** Identity helper that keeps the argument and result types of a spec inferred from its schemas. */
export function defineTool<I extends Shape, O extends Shape>(spec: ToolSpec<I, O>): ToolSpec<I, O> {
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(spec.name)) {
    throw new Error(`tool name "${spec.name}" must be lower_snake_case, 1-64 characters`);
  }
  return spec;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds specs of every argument type.
export type AnyToolSpec = ToolSpec<any, any>;

/** The server side of one call, as the registry hands it to the gate. */
export interface CallRequest {
  readonly name: string;
  readonly args: unknown;
  readonly surface: Surface;
  readonly caller: Caller;
  readonly signal: AbortSignal;
  readonly progress?: (update: Progress) => Promise<void>;
}

export type Dispatch = (request: CallRequest) => Promise<CallToolResult>;

/** An after-write hook adds a field to every writing tool's output (e.g. `diagnostics`). */
export interface AfterWriteHook<V = unknown> {
  readonly key: string;
  readonly schema: z.ZodType<V>;
  run(paths: readonly string[], signal: AbortSignal): Promise<{ text: string; value: V } | undefined>;
}

interface Mount {
  readonly surface: Surface;
  readonly server: McpServer;
  readonly caller: Caller;
}

export interface RegistryOptions {
  readonly serverName: string;
  readonly serverVersion: string;
  readonly isWired: (key: ResourceKey) => boolean;
  readonly dispatch: Dispatch;
  readonly afterWrite: () => readonly AfterWriteHook[];
}

export class Registry {
  readonly #specs = new Map<string, AnyToolSpec>();
  /** Specs left out because a resource is not wired: name → the missing keys (for a clear refusal). */
  readonly #unwired = new Map<string, ResourceKey[]>();
  readonly #mounts = new Set<Mount>();
  readonly #options: RegistryOptions;

  constructor(options: RegistryOptions) {
    this.#options = options;
  }

  /** Adds a spec if its resources are wired; returns whether it was registered. */
  add(spec: AnyToolSpec): boolean {
    if (this.#specs.has(spec.name)) throw new Error(`a tool named "${spec.name}" is already registered`);
    const missing = this.missing(spec);
    if (missing.length) this.#unwired.set(spec.name, missing);
    else {
      this.#unwired.delete(spec.name);
      this.#specs.set(spec.name, spec);
      for (const mount of this.#mounts) {
        if (surfaceSees(mount.surface, spec.tier))
          this.#register(mount.server, spec, mount.surface, mount.caller);
      }
      return true;
    }
    return false;
  }

  /** Routes a call that did not come over a link (kernel bridge, worker) through the same gate. */
  dispatch(request: CallRequest): Promise<CallToolResult> {
    return this.#options.dispatch(request);
  }

  /** The missing resources of a tool that was left out, or undefined. */
  unwired(name: string): ResourceKey[] | undefined {
    return this.#unwired.get(name);
  }

  missing(spec: AnyToolSpec): ResourceKey[] {
    return spec.needs.filter((key) => !this.#options.isWired(key));
  }

  get(name: string): AnyToolSpec | undefined {
    return this.#specs.get(name);
  }

  all(): AnyToolSpec[] {
    return [...this.#specs.values()];
  }

  visible(surface: Surface): AnyToolSpec[] {
    return this.all().filter((spec) => surfaceSees(surface, spec.tier));
  }

  /** The output shape as listed: the spec's own, plus the after-write hooks' fields for writing tools. */
  outputShape(spec: AnyToolSpec): Shape {
    if (!spec.writes) return spec.output;
    const extra = Object.fromEntries(
      this.#options.afterWrite().map((hook) => [hook.key, hook.schema.optional()]),
    );
    return { ...spec.output, ...extra };
  }

  /**
   * A new McpServer listing the tools this surface may see. Calls go to the dispatcher, which checks the surface
   * again: a crafted call for a tool the surface does not list is refused there, with a reason.
   */
  mount(surface: Surface, caller: Caller = "model"): { server: McpServer; unmount: () => void } {
    const server = new McpServer(
      { name: this.#options.serverName, version: this.#options.serverVersion },
      { capabilities: { tools: { listChanged: true } } },
    );
    // The SDK installs its tools/list and tools/call handlers lazily on the first registerTool; install them now so
    // a surface with no tools still answers tools/list, and so their tools/call handler can be taken away below.
    const internals = server as unknown as { setToolRequestHandlers?: () => void };
    if (typeof internals.setToolRequestHandlers !== "function") {
      throw new Error(
        "@modelcontextprotocol/sdk changed: McpServer.setToolRequestHandlers is gone; pin 1.32.x",
      );
    }
    internals.setToolRequestHandlers();
    const mount: Mount = { surface, server, caller };
    for (const spec of this.visible(surface)) this.#register(server, spec, surface, caller);
    // tools/call reaches the dispatcher without the SDK's tools/call handling, which parsed every request twice and
    // every result once more with zod: ~0.1 ms a call between I/O (measured on a 3.4 ms lldb step), for checks the
    // gate makes anyway (strict arguments, the output schema). The fallback is the SDK's hook for a method that has no
    // handler of its own.
    server.server.removeRequestHandler("tools/call");
    server.server.fallbackRequestHandler = async (request, extra) => {
      if (request.method !== "tools/call")
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      const { name, arguments: args, _meta } = request.params ?? {};
      if (typeof name !== "string")
        throw new McpError(
          ErrorCode.InvalidParams,
          "tools/call needs params.name, the name of a listed tool",
        );
      if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
        throw new McpError(
          ErrorCode.InvalidParams,
          `tools/call ${name}: params.arguments must be an object of the tool's arguments`,
        );
      const token = (_meta as { progressToken?: string | number } | undefined)?.progressToken;
      return this.#options.dispatch({
        name,
        args: (args ?? {}) as Record<string, unknown>,
        surface,
        caller,
        signal: extra.signal,
        progress:
          token === undefined
            ? undefined
            : (update) =>
                extra.sendNotification({
                  method: "notifications/progress",
                  params: { progressToken: token, ...update },
                }),
      });
    };
    this.#mounts.add(mount);
    return { server, unmount: () => this.#mounts.delete(mount) };
  }

  #register(server: McpServer, spec: AnyToolSpec, surface: Surface, caller: Caller): void {
    const annotations: ToolAnnotations = {
      title: spec.title,
      readOnlyHint: spec.tier === "read",
      destructiveHint: spec.tier !== "read",
      idempotentHint: false,
      openWorldHint: false,
    };
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: spec.input,
        outputSchema: this.outputShape(spec),
        annotations,
      },
      // Never reached: tools/call is routed to the dispatcher above. Kept correct in case a host calls it.
      (args: unknown, extra: { signal: AbortSignal }) =>
        this.#options.dispatch({
          name: spec.name,
          args,
          surface,
          caller,
          signal: extra.signal,
        }),
    );
  }
}
