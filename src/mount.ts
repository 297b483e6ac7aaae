/**
 * Mounting a surface on an McpServer: the tools the surface may see are listed, and every tools/call goes to the
 * dispatcher (the gate), which checks the surface again — a crafted call for a tool the surface does not list is
 * refused there, with a reason. The MCP SDK's own tools/call handling is taken out of the way (see below); this is
 * the one module that knows the SDK's internals.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { annotationsOf, effectsOfTier } from "./annotations.js";
import type { AnyToolSpec, Dispatch, Registry } from "./registry.js";
import { type Caller, type Surface, surfaceSees } from "./surfaces.js";

export interface Mounted {
  readonly server: McpServer;
  /** Stops listing tools added later on this server. */
  readonly unmount: () => void;
}

export function mountSurface(
  registry: Registry,
  dispatch: Dispatch,
  info: { readonly name: string; readonly version: string },
  surface: Surface,
  caller: Caller = "model",
  /** Whether what the run starts reaches the network (false: a confined run whose network is off). */
  network = true,
): Mounted {
  const server = new McpServer(info, { capabilities: { tools: { listChanged: true } } });
  // The SDK installs its tools/list and tools/call handlers lazily on the first registerTool; install them now so
  // a surface with no tools still answers tools/list, and so their tools/call handler can be taken away below.
  const internals = server as unknown as { setToolRequestHandlers?: () => void };
  if (typeof internals.setToolRequestHandlers !== "function") {
    throw new Error(
      "@modelcontextprotocol/sdk changed: McpServer.setToolRequestHandlers is gone; pin 1.32.x",
    );
  }
  internals.setToolRequestHandlers();
  for (const spec of registry.visible(surface))
    list(server, registry, dispatch, spec, surface, caller, network);
  routeCalls(server, dispatch, surface, caller);
  const unmount = registry.onAdd((spec) => {
    if (surfaceSees(surface, spec.tier)) list(server, registry, dispatch, spec, surface, caller, network);
  });
  return { server, unmount };
}

/**
 * tools/call reaches the dispatcher without the SDK's tools/call handling, which parsed every request twice and
 * every result once more with zod, for checks the gate makes anyway (strict arguments, the output schema; the cost
 * is in ARCHITECTURE.md). The fallback is the SDK's hook for a method that has no handler of its own.
 */
function routeCalls(server: McpServer, dispatch: Dispatch, surface: Surface, caller: Caller): void {
  server.server.removeRequestHandler("tools/call");
  server.server.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== "tools/call")
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const { name, arguments: args, _meta } = request.params ?? {};
    if (typeof name !== "string")
      throw new McpError(ErrorCode.InvalidParams, "tools/call needs params.name, the name of a listed tool");
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
      throw new McpError(
        ErrorCode.InvalidParams,
        `tools/call ${name}: params.arguments must be an object of the tool's arguments`,
      );
    const token = (_meta as { progressToken?: string | number } | undefined)?.progressToken;
    return dispatch({
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
}

function list(
  server: McpServer,
  registry: Registry,
  dispatch: Dispatch,
  spec: AnyToolSpec,
  surface: Surface,
  caller: Caller,
  network: boolean,
): void {
  const annotations = annotationsOf(spec.title, spec.effects ?? effectsOfTier(spec.tier), surface, network);
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: registry.outputShape(spec),
      annotations,
    },
    // Never reached: tools/call is routed to the dispatcher above. Kept correct in case a host calls it.
    (args: unknown, extra: { signal: AbortSignal }) =>
      dispatch({ name: spec.name, args, surface, caller, signal: extra.signal }),
  );
}
