import { checkDebugArgs, OPERATIONS } from "../dap/answers.js";
import { commandOf } from "../dap/attach-pid.js";
import { DapRefused, DapTimeout } from "../dap/client.js";
import { debugInput, debugOutput } from "../dap/schema.js";
import { ToolError } from "../errors.js";
import { defineTool } from "../registry.js";

export const debugTool = defineTool({
  name: "debug",
  // The program writes and reaches what the run's network allows; terminate ends it.
  effects: { files: "write", starts: "code", kills: true, network: true, idempotent: false },
  title: "Drive a debugger",
  tier: "exec",
  needs: ["debug"],
  parallelSafe: false,
  runsCode: true,
  description: [
    "Debug a program with a real debugger (debugpy for Python, delve for Go, lldb for C/C++/Rust binaries, Node's inspector for JavaScript and TypeScript).",
    "One session per conversation (30-minute TTL); a second launch is refused while one runs.",
    "Set `breakpoints` (file + lines; [] clears; or file + breakpoints with condition / hit_condition / log_message; or function_breakpoints; or exception_breakpoints, the filters status lists) before or after `launch` (program + args) or `attach` (port of a program already under a debug server: debugpy --listen, dlv --headless, lldb-server gdbserver, node --inspect, started in this run (a cell, a worker) or on the host; or pid of a program running in the workdir). continue and step_over /",
    "step_in / step_out answer in one call with where it stopped, the source line, the top frames and the locals;",
    "an uncaught exception, a panic or a crash stops the program where it failed, with what was raised.",
    "run_to_line (file, line) continues to a line without leaving a breakpoint; snapshot (file, line, expressions?, max_hits?, condition?) runs through a line recording each hit's values and frames in one call (up to 50 hits).",
    "Also: pause, threads, stack, scopes (frame_id), variables (reference), evaluate (expression, frame_id?), set_variable (name, value), watch (expressions shown at every stop),",
    "output (the program's stdout/stderr), status, adapters (which debuggers are usable here, and why not), terminate.",
  ].join(" "),
  input: debugInput,
  output: debugOutput,
  describeCall: (args) =>
    args.operation === "launch"
      ? `launch ${args.program ?? "?"} ${(args.args ?? []).join(" ")} under a debugger`
      : args.operation === "attach" && args.pid !== undefined
        ? `attach a debugger to pid ${args.pid} (\`${commandOf(args.pid) || "?"}\`) on the host, outside the sandbox: through it, that program can be made to run any code as the harness's user`
        : `debug ${args.operation}`,
  check: checkDebugArgs,
  async run(args, ctx) {
    try {
      return await OPERATIONS[args.operation](args, ctx.use("debug"), (p) => ctx.progress(p));
    } catch (error) {
      // An adapter's refusal is an answer about the program or the arguments, not a fault of runbound.
      if (error instanceof DapRefused) {
        const adapter = ctx.use("debug").running?.spec.name ?? "The adapter";
        throw new ToolError(
          `${adapter} refused ${error.command}: ${error.message.trim().replace(/\.$/, "")}.`,
        );
      }
      // A request the adapter never answered is the adapter's hang, not a fault of runbound's.
      if (error instanceof DapTimeout) {
        const adapter = ctx.use("debug").running?.spec.name ?? "The adapter";
        throw new ToolError(
          `${error.by(adapter)}. It may hang: status shows the session; terminate ends it, then launch again.`,
        );
      }
      throw error;
    }
  },
});
