/** What a harness sets for a run's kernels (`createRun({ kernels })`). */
import type { JavaScriptKernel, Sandbox } from "./schema.js";

export interface KernelOptions {
  /**
   * What runs JavaScript cells: runbound's kernel on the harness's own Node (default; ~55 MB, its ZeroMQ from
   * `runbound setup --only node-kernel`) or Deno's (~200 MB, from `runbound setup --only deno`; `Deno.*`, `npm:`).
   */
  readonly javascript?: JavaScriptKernel;
  /** A cell with no output for this long is interrupted. Default 300. */
  readonly idleSeconds?: number;
  /** A cell running this long is interrupted, output or not (a loop that prints forever). Default 1800. */
  readonly maxCellSeconds?: number;
  /**
   * A kernel without a cell for this long is shut down and its state dropped; the next cell's answer says so.
   * Default never (0 / false): a kernel's state is the user's.
   */
  readonly stopIdleSeconds?: number | false;
  /** A cell still running this long after an interrupt loses its kernel (shut down; state lost). Default 10. */
  readonly interruptGraceSeconds?: number;
  readonly startTimeoutSeconds?: number;
  /** Use a Jupyter server the harness runs (its kernelspecs python3 and deno) instead of starting one. */
  readonly server?: { readonly url: string; readonly token: string };
  /** Kernels run inside it when it is up as they start; else on the host. */
  readonly sandbox?: Sandbox;
}
