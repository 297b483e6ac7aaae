/**
 * The modules of a run's machinery and of each tool family, loaded when createRun wires them: `import("runbound")`
 * loads none of them. It took ~300 ms here (0.65–0.9 s on a harness's machine) for a harness that may use two tools:
 * the MCP SDK (~110 ms), the Jupyter client (~70 ms) and the LSP protocol (~60 ms) came with every import.
 */
import type { RunOptions } from "./run-options.js";

export interface RunModules {
  readonly tools: typeof import("./tools/index.js");
  readonly gate: typeof import("./gate.js");
  readonly mount: typeof import("./mount.js");
  readonly link: typeof import("../transport/link.js");
  readonly notebooks?: typeof import("./notebooks/book.js");
  readonly ast?: typeof import("./ast/engine.js");
  readonly kernels?: typeof import("./kernels/pool.js");
  readonly debug?: typeof import("./dap/supervisor.js");
  readonly lsp?: typeof import("./lsp/wiring.js");
  readonly vibe?: typeof import("./vibe/pool.js");
}

/** The machinery and the families `options` wires, loaded together. */
export async function loadRunModules(options: RunOptions): Promise<RunModules> {
  const [tools, gate, mount, link, notebooks, ast, kernels, debug, lsp, vibe] = await Promise.all([
    import("./tools/index.js"),
    import("./gate.js"),
    import("./mount.js"),
    import("../transport/link.js"),
    options.files !== false ? import("./notebooks/book.js") : undefined,
    options.ast !== false ? import("./ast/engine.js") : undefined,
    options.kernels !== false ? import("./kernels/pool.js") : undefined,
    options.debug !== false && options.conversationId ? import("./dap/supervisor.js") : undefined,
    options.lsp !== false ? import("./lsp/wiring.js") : undefined,
    options.vibe ? import("./vibe/pool.js") : undefined,
  ]);
  return { tools, gate, mount, link, notebooks, ast, kernels, debug, lsp, vibe };
}
