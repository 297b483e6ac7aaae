import { z } from "zod";
import { DapRefused, DapTimeout } from "../dap/client.js";
import type { DebugSession, StopReport } from "../dap/session.js";
import { ToolError } from "../errors.js";
import { defineTool, type ToolContext } from "../registry.js";

const OPERATIONS = [
  "adapters",
  "status",
  "breakpoints",
  "launch",
  "attach",
  "continue",
  "pause",
  "step_over",
  "step_in",
  "step_out",
  "threads",
  "stack",
  "scopes",
  "variables",
  "evaluate",
  "output",
  "terminate",
] as const;

const frame = z.object({
  id: z.number().int(),
  name: z.string(),
  path: z.string().optional(),
  line: z.number().int().optional(),
});
const variable = z.object({
  name: z.string(),
  value: z.string(),
  type: z.string().optional(),
  reference: z.number().int().optional(),
});

const input = {
  operation: z.enum(OPERATIONS),
  file: z.string().optional().describe("breakpoints: the source file."),
  lines: z
    .array(z.number().int().min(1))
    .optional()
    .describe("breakpoints: 1-based lines; [] clears the file."),
  program: z
    .string()
    .optional()
    .describe("launch: the program (a .py or .go file or package folder, or a built binary)."),
  args: z.array(z.string()).optional().describe("launch: the program's arguments."),
  port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe(
      "attach: the loopback port of the program's debug server (`python -m debugpy --listen`, `dlv … --headless --listen`, `lldb-server gdbserver`).",
    ),
  thread_id: z
    .number()
    .int()
    .optional()
    .describe("continue, pause, steps, stack: the thread (default: the stopped one)."),
  frame_id: z.number().int().optional().describe("scopes, evaluate: a frame id from stack."),
  reference: z.number().int().optional().describe("variables: a reference from scopes or variables."),
  expression: z.string().optional().describe("evaluate: an expression in the frame's scope."),
  all: z
    .boolean()
    .optional()
    .describe("threads: include the Go runtime's own goroutines (left out by default)."),
};

/** The arguments as the gate hands them over (parsed, strict). */
type DebugArgs = z.infer<z.ZodObject<typeof input>>;

export const debugTool = defineTool({
  name: "debug",
  title: "Drive a debugger",
  tier: "exec",
  needs: ["debug"],
  parallelSafe: false,
  description: [
    "Debug a program with a real debugger (debugpy for Python, delve for Go, lldb for C/C++/Rust binaries).",
    "One session per conversation (30-minute TTL); a second launch is refused while one runs.",
    "Set `breakpoints` (file + lines; [] clears) before or after `launch` (program + args) or `attach` (port of a program already under a debug server: debugpy --listen, dlv --headless, lldb-server gdbserver). continue and step_over /",
    "step_in / step_out answer in one call with where it stopped, the source line, the top frames and the locals;",
    "an uncaught exception, a panic or a crash stops the program where it failed, with what was raised.",
    "Also: pause, threads, stack, scopes (frame_id), variables (reference), evaluate (expression, frame_id?),",
    "output (the program's stdout/stderr), status, adapters (which debuggers are usable here, and why not), terminate.",
  ].join(" "),
  input,
  output: {
    operation: z.string(),
    state: z.enum(["running", "stopped", "exited", "none"]).optional(),
    reason: z.string().optional(),
    error: z.string().optional().describe('At a stop for "error": what the adapter said.'),
    workdir_frame: z
      .object({
        id: z.number().int(),
        path: z.string(),
        line: z.number().int(),
        function: z.string(),
        source: z.string(),
      })
      .optional()
      .describe("When the top frame is outside the workdir: the first frame inside it."),
    exception: z
      .object({ id: z.string().optional(), description: z.string() })
      .optional()
      .describe("At a stop for an exception: what was raised."),
    unavailable: z
      .array(z.string())
      .optional()
      .describe("At a stop: what the adapter did not give (frames, scopes, locals), and why."),
    thread_id: z.number().int().optional(),
    location: z
      .object({ path: z.string(), line: z.number().int(), function: z.string(), source: z.string() })
      .optional(),
    frames: z.array(frame).optional(),
    locals: z.array(variable).optional(),
    variables: z.array(variable).optional(),
    total: z.number().int().optional(),
    scopes: z.array(z.object({ name: z.string(), reference: z.number().int() })).optional(),
    threads: z.array(z.object({ id: z.number().int(), name: z.string() })).optional(),
    result: z.string().optional(),
    output: z.string().optional(),
    exit_code: z.number().int().optional(),
    breakpoints: z
      .array(
        z.object({
          path: z.string(),
          results: z.array(
            z.object({
              line: z.number().int(),
              verified: z.boolean(),
              actual_line: z.number().int().optional(),
              message: z.string().optional(),
            }),
          ),
        }),
      )
      .optional(),
    adapters: z.array(z.object({ id: z.string(), usable: z.boolean(), detail: z.string() })).optional(),
  },
  describeCall: (args) =>
    args.operation === "launch"
      ? `launch ${args.program ?? "?"} ${(args.args ?? []).join(" ")} under a debugger`
      : `debug ${args.operation}`,
  async run(args, ctx) {
    try {
      return await operate(args, ctx);
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

async function operate(args: DebugArgs, ctx: ToolContext) {
  const debug = ctx.use("debug");
  const need = <K extends keyof typeof args>(key: K, why: string): NonNullable<(typeof args)[K]> => {
    const value = args[key];
    if (value === undefined) throw new ToolError(`${args.operation} needs \`${String(key)}\` (${why}).`);
    return value as NonNullable<(typeof args)[K]>;
  };
  switch (args.operation) {
    case "adapters": {
      const adapters = debug.adapters();
      return {
        text: adapters.map((a) => `${a.id}: ${a.usable ? "usable" : "not usable"} — ${a.detail}`).join("\n"),
        structured: { operation: "adapters", adapters },
      };
    }
    case "status": {
      const session = debug.running;
      if (!session)
        return {
          text: "No debug session is running.",
          structured: { operation: "status", state: "none" as const },
        };
      const report = await session.report();
      return {
        text: `Session: ${debug.describe(session)}.\n${describeStop(report)}`,
        structured: { operation: "status", ...report },
      };
    }
    case "breakpoints": {
      const file = need("file", "the source file");
      const lines = need("lines", "1-based lines; [] clears the file");
      const { path, results, sent } = await debug.setBreakpoints(file, lines);
      const rows = results.map(
        (r) =>
          `  ${path}:${r.line} ${r.verified ? `verified${r.actual_line ? ` (moved to line ${r.actual_line})` : ""}` : `not verified${r.message ? `: ${r.message}` : ""}`}`,
      );
      const head = lines.length
        ? `${lines.length} breakpoint${lines.length > 1 ? "s" : ""} in ${path}${sent ? "" : " (set before launch)"}:`
        : `Cleared the breakpoints of ${path}.`;
      return {
        text: [head, ...rows].join("\n"),
        structured: { operation: "breakpoints", breakpoints: [{ path, results }] },
      };
    }
    case "launch": {
      const program = need("program", "what to run");
      // A launch can outlast a client's request timeout (delve builds first; then up to the stop deadline): a beat
      // each second lets a client that resets its timeout on progress wait it out.
      const started = Date.now();
      const beat = setInterval(() => {
        const seconds = Math.round((Date.now() - started) / 1000);
        void ctx
          .progress({ progress: seconds, message: `launching ${program}: ${seconds} s` })
          .catch(() => undefined);
      }, 1000);
      const { report, breakpoints, session } = await debug
        .launch(program, args.args ?? [])
        .finally(() => clearInterval(beat));
      const verified = breakpoints.flatMap((b) =>
        b.results.map(
          (r) =>
            `${b.path}:${r.line} ${r.verified ? "verified" : `not verified${r.message ? ` (${r.message})` : ""}`}`,
        ),
      );
      const head = `Launched ${debug.describe(session)} with ${session.adapter.detail}.${verified.length ? `\nBreakpoints: ${verified.join("; ")}` : ""}`;
      return {
        text: `${head}\n${describeStop(report)}${failedOutput(report, session)}`,
        structured: { operation: "launch", breakpoints, ...report },
      };
    }
    case "attach": {
      const { report, breakpoints, session } = await debug.attach(
        need("port", "where the program's debug server listens"),
      );
      return {
        text: `Attached to ${debug.describe(session)} with ${session.adapter.detail}.\n${describeStop(report)}`,
        structured: { operation: "attach", breakpoints, ...report },
      };
    }
    case "continue":
    case "step_over":
    case "step_in":
    case "step_out": {
      const command = (
        { continue: "continue", step_over: "next", step_in: "stepIn", step_out: "stepOut" } as const
      )[args.operation];
      const report = await debug.session(args.operation).resume(command, args.thread_id);
      return {
        text: `${describeStop(report)}${failedOutput(report, debug.running)}`,
        structured: { operation: args.operation, ...report },
      };
    }
    case "pause": {
      const report = await debug.session("pause").pause(args.thread_id);
      return { text: describeStop(report), structured: { operation: "pause", ...report } };
    }
    case "threads": {
      const threads = await debug.session("threads").threads(args.all ?? false);
      return {
        text: threads.map((t) => `  ${t.id}  ${t.name}`).join("\n") || "No threads.",
        structured: { operation: "threads", threads },
      };
    }
    case "stack": {
      const frames = await debug.session("stack").stack(args.thread_id);
      return {
        text:
          frames.map((f) => `  #${f.id} ${f.name}${f.path ? ` (${f.path}:${f.line})` : ""}`).join("\n") ||
          "No frames: the adapter listed none for this thread.",
        structured: { operation: "stack", frames },
      };
    }
    case "scopes": {
      const scopes = await debug.session("scopes").scopes(need("frame_id", "a frame id from stack"));
      return {
        text:
          scopes.map((s) => `  ${s.name}: reference ${s.reference}`).join("\n") ||
          `No scopes for frame ${args.frame_id}: take a frame id from the latest stack.`,
        structured: { operation: "scopes", scopes },
      };
    }
    case "variables": {
      const reference = need("reference", "from scopes or variables");
      const { variables, total } = await debug.session("variables").variables(reference);
      if (variables.length === 0)
        return {
          text: `Reference ${reference} has no children. A reference from scopes or variables holds until the program runs again; take a fresh one from the latest stop.`,
          structured: { operation: "variables", variables, total },
        };
      const more = total > variables.length ? `\n(showing ${variables.length} of ${total})` : "";
      return {
        text:
          variables
            .map(
              (v) =>
                `  ${v.name} = ${v.value}${v.type ? ` (${v.type})` : ""}${v.reference ? ` [reference ${v.reference}]` : ""}`,
            )
            .join("\n") + more,
        structured: { operation: "variables", variables, total },
      };
    }
    case "evaluate": {
      const { result, type } = await debug
        .session("evaluate")
        .evaluate(need("expression", "what to evaluate"), args.frame_id);
      return {
        text: `${args.expression} = ${result}${type ? ` (${type})` : ""}`,
        structured: { operation: "evaluate", result },
      };
    }
    case "output": {
      const session = debug.session("output");
      const { text, dropped } = session.output();
      // An attached program was started elsewhere: its output goes to that terminal unless the server forwards it.
      const none = session.attached
        ? "(no output received: the program was started outside runbound, so its output goes where it was started unless its debug server forwards it)"
        : "(no output yet)";
      return {
        text: `${dropped ? `(${dropped} earlier bytes dropped)\n` : ""}${text || none}`,
        structured: { operation: "output", output: text },
      };
    }
    default: {
      const said = await debug.terminate();
      return {
        text: said,
        structured: { operation: "terminate", state: "exited" as const },
      };
    }
  }
}

/**
 * After a program exited with a failure code, its last lines (a Python SyntaxError is raised before any breakpoint,
 * so the launch answer is the only place the agent sees it without another call).
 */
function failedOutput(report: StopReport, session: DebugSession | undefined): string {
  if (report.state !== "exited" || !report.exit_code || !session) return "";
  const last = session.lastLines(10);
  if (!last) return "";
  const count = last.split("\n").length;
  return `\nIts last ${count === 1 ? "line" : `${count} lines`} of output:\n${last}`;
}

export function describeStop(report: StopReport): string {
  if (report.state === "exited" && report.error)
    return `${report.error.replace(/^the/, "The")}; the program went with it. Launch again.`;
  if (report.state === "exited")
    return `The program exited${report.exit_code !== undefined ? ` with code ${report.exit_code}` : ""}. Its stdout/stderr: the output operation.`;
  if (report.state === "running")
    return "The program is running and has not stopped within the deadline; use pause, or status later.";
  const lines = [
    `Stopped (${report.reason}) in thread ${report.thread_id}${report.location ? ` at ${report.location.path}:${report.location.line} in ${report.location.function}` : ""}`,
  ];
  if (report.location?.source) lines.push(`  ${report.location.line}  ${report.location.source}`);
  if (report.error) lines.push(`Error: ${report.error}`);
  if (report.exception)
    lines.push(
      `Exception: ${report.exception.id && !report.exception.description.startsWith(report.exception.id) ? `${report.exception.id}: ` : ""}${report.exception.description}`,
    );
  if (report.workdir_frame) {
    const own = report.workdir_frame;
    lines.push(`First frame in the workdir: #${own.id} ${own.function} at ${own.path}:${own.line}`);
    if (own.source) lines.push(`  ${own.line}  ${own.source}`);
  }
  if (report.frames?.length)
    lines.push(
      `Frames: ${report.frames.map((f) => `#${f.id} ${f.name}${f.line ? `:${f.line}` : ""}`).join(" ← ")}`,
    );
  if (report.locals?.length)
    lines.push(
      `Locals: ${report.locals.map((v) => `${v.name} = ${v.value.length > 60 ? `${v.value.slice(0, 60)}…` : v.value}`).join("; ")}`,
    );
  if (report.unavailable?.length)
    lines.push(`Not available at this stop: ${report.unavailable.join("; ")}. status asks again.`);
  return lines.join("\n");
}
