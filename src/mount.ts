/**
 * Mounting a surface on an McpServer (MCP SDK v2): the tools the surface may see are listed, and every tools/call
 * goes to the dispatcher (the gate), which checks the surface again — a crafted call for a tool the surface does not
 * list is refused there, with a reason. Only the SDK's public API is used: the tools capability installs its
 * tools/list and tools/call handlers at construction, and tools/call is then taken away and answered by the
 * server's fallback handler (see routeCalls).
 */
import {
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { annotationsOf, effectsOfTier } from "./annotations.js";
import type { AnyToolSpec, Dispatch, Registry } from "./registry.js";
import { type Caller, type Surface, surfaceSees } from "./surfaces.js";

export interface Mounted {
  readonly server: McpServer;
  /** Stops listing tools added later on this server. */
  readonly unmount: () => void;
}

/** Who mounts: the surface, who calls on it, and whether what the run starts reaches the network. */
export interface MountOptions {
  readonly surface: Surface;
  readonly caller?: Caller;
  /** false: a confined run whose network is off (eval and debug are then not open-world). */
  readonly network?: boolean;
  /** true (the default): tools added to the registry later are listed on this server too. */
  readonly live?: boolean;
}

export function mountSurface(
  registry: Registry,
  dispatch: Dispatch,
  info: { readonly name: string; readonly version: string },
  options: MountOptions,
): Mounted {
  const { surface, caller = "model", network = true, live = true } = options;
  // The tools capability makes the server answer tools/list (an empty list for a surface without tools) at once.
  const server = new McpServer(info, { capabilities: { tools: { listChanged: true } } });
  for (const spec of registry.visible(surface)) list(server, registry, spec, surface, network);
  routeCalls(server, dispatch, surface, caller);
  if (!live) return { server, unmount: () => undefined };
  const unmount = registry.onAdd((spec) => {
    if (surfaceSees(surface, spec.tier)) list(server, registry, spec, surface, network);
  });
  return { server, unmount };
}

/**
 * tools/call reaches the dispatcher without the SDK's tools/call handling, which validates the arguments and the
 * result again with the tool's schemas and answers a bad argument with its own text — the gate makes those checks
 * and its errors say what to fix. The fallback is the SDK's public hook for a method without a handler of its own;
 * the SDK still encodes the result for the negotiated protocol version.
 */
function routeCalls(server: McpServer, dispatch: Dispatch, surface: Surface, caller: Caller): void {
  server.server.removeRequestHandler("tools/call");
  server.server.fallbackRequestHandler = async (request, ctx: ServerContext) => {
    if (request.method !== "tools/call")
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const { name, arguments: args, _meta } = (request.params ?? {}) as Record<string, unknown>;
    if (typeof name !== "string")
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "tools/call needs params.name, the name of a listed tool",
      );
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `tools/call ${name}: params.arguments must be an object of the tool's arguments`,
      );
    const token = (_meta as { progressToken?: string | number } | undefined)?.progressToken;
    const result = await dispatch({
      name,
      args: (args ?? {}) as Record<string, unknown>,
      surface,
      caller,
      signal: ctx.mcpReq.signal,
      progress:
        token === undefined
          ? undefined
          : (update) =>
              ctx.mcpReq.notify({
                method: "notifications/progress",
                params: { progressToken: token, ...update },
              }),
    });
    return result as unknown as Awaited<ReturnType<NonNullable<typeof server.server.fallbackRequestHandler>>>;
  };
}

/*
 * The link mounts a server per request (how the SDK serves 2026-07-28): each tool's zod objects are made once, not
 * on every call (they were most of the link's cost over the bare SDK's).
 */
const inputObjects = new WeakMap<AnyToolSpec, z.ZodObject>();
const outputObjects = new WeakMap<AnyToolSpec, { readonly fields: string; readonly object: z.ZodObject }>();

function inputObject(spec: AnyToolSpec): z.ZodObject {
  let object = inputObjects.get(spec);
  if (!object) {
    object = z.object(spec.input);
    inputObjects.set(spec, object);
  }
  return object;
}

/** The output object, with the after-write hooks' fields for a writing tool (a hook added later adds one). */
function outputObject(registry: Registry, spec: AnyToolSpec): z.ZodObject {
  const shape = registry.outputShape(spec);
  const fields = Object.keys(shape).join(",");
  const cached = outputObjects.get(spec);
  if (cached?.fields === fields) return cached.object;
  const object = z.object(shape);
  outputObjects.set(spec, { fields, object });
  return object;
}

function list(
  server: McpServer,
  registry: Registry,
  spec: AnyToolSpec,
  surface: Surface,
  network: boolean,
): void {
  const annotations = annotationsOf(spec.title, spec.effects ?? effectsOfTier(spec.tier), surface, network);
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: inputObject(spec),
      outputSchema: outputObject(registry, spec),
      annotations,
    },
    // Never reached: tools/call is answered by the fallback above.
    () => {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `${spec.name}: tools/call is routed to the gate`,
      );
    },
  );
}
