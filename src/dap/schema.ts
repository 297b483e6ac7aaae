/** The zod shapes of the debug tool's input and answers: the tool lists them, the resource's types come from them. */
import { z } from "zod";

export const DEBUG_OPERATIONS = [
  "adapters",
  "status",
  "breakpoints",
  "launch",
  "attach",
  "continue",
  "run_to_line",
  "snapshot",
  "pause",
  "step_over",
  "step_in",
  "step_out",
  "threads",
  "stack",
  "scopes",
  "variables",
  "evaluate",
  "set_variable",
  "watch",
  "output",
  "terminate",
] as const;

const frame = z.object({
  id: z.number().int(),
  name: z.string(),
  path: z.string().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  origin: z
    .string()
    .optional()
    .describe(
      "Where a frame without a file runs, as the adapter names it (node:internal/…): not a path to read.",
    ),
});
const variable = z.object({
  name: z.string(),
  value: z.string(),
  type: z.string().optional(),
  reference: z.number().int().optional(),
});

export const debugInput = {
  operation: z.enum(DEBUG_OPERATIONS),
  file: z.string().optional().describe("breakpoints, run_to_line, snapshot: the source file."),
  lines: z
    .array(z.number().int().min(1))
    .optional()
    .describe("breakpoints: 1-based lines; [] clears the file."),
  line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("run_to_line, snapshot: the 1-based line of `file`; no breakpoint stays there."),
  expressions: z
    .array(z.string().min(1))
    .max(20)
    .optional()
    .describe("snapshot: what to record at each hit (default: the frame's locals)."),
  max_hits: z
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .describe("snapshot: stop recording after this many hits (default 20)."),
  condition: z.string().min(1).optional().describe("snapshot: record only the hits where this is true."),
  breakpoints: z
    .array(
      z.object({
        line: z.number().int().min(1),
        condition: z.string().min(1).optional().describe("Stop only when this expression is true."),
        hit_condition: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Stop only on some hits, in the adapter\'s syntax: e.g. "5" or ">= 5" (debugpy, lldb, node), "> 5" or "% 10" (delve).',
          ),
        log_message: z
          .string()
          .min(1)
          .optional()
          .describe("A logpoint: print this ({expr} interpolated) and do not stop."),
      }),
    )
    .optional()
    .describe("breakpoints: instead of `lines`, lines with options; [] clears the file."),
  function_breakpoints: z
    .array(z.string().min(1))
    .optional()
    .describe("breakpoints: stop on entry to these functions (names as the adapter knows them); [] clears."),
  exception_breakpoints: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "breakpoints: the adapter's exception filters to stop on (status lists them), e.g. debugpy raised / uncaught; [] stops on none.",
    ),
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
      "attach: the loopback port of the program's debug server (`python -m debugpy --listen`, `dlv … --headless --listen`, `lldb-server gdbserver`, `node --inspect`).",
    ),
  pid: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      "attach: instead of port, the process id of a program running in the workdir (Python, Go, native; Node, whose inspector runbound opens with SIGUSR1 and closes when it leaves).",
    ),
  thread_id: z
    .number()
    .int()
    .optional()
    .describe("continue, pause, steps, stack: the thread (default: the stopped one)."),
  frame_id: z.number().int().optional().describe("scopes, evaluate, set_variable: a frame id from stack."),
  reference: z
    .number()
    .int()
    .optional()
    .describe("variables: a reference from scopes or variables; set_variable: what holds the variable."),
  expression: z.string().optional().describe("evaluate: an expression in the frame's scope."),
  name: z.string().min(1).optional().describe("set_variable: the variable (as scopes or variables list it)."),
  value: z
    .string()
    .optional()
    .describe("set_variable: the new value, as an expression of the program's language."),
  watch: z
    .array(z.string().min(1))
    .max(10)
    .optional()
    .describe(
      "launch, attach, watch: expressions evaluated at every stop and shown in its answer (replaces the list; [] clears).",
    ),
  all: z
    .boolean()
    .optional()
    .describe("threads: include the Go runtime's own goroutines (left out by default)."),
};

export type DebugOperation = (typeof DEBUG_OPERATIONS)[number];
/** The arguments as the gate hands them over (parsed, strict). */
export type DebugArgs = z.infer<z.ZodObject<typeof debugInput>>;

const located = { path: z.string(), line: z.number().int(), function: z.string(), source: z.string() };

/** Where a stopped program stands, in one answer (stop-report.ts builds it). */
export const stopReportShape = {
  state: z.enum(["running", "stopped", "exited"]),
  reason: z.string().optional(),
  error: z.string().optional().describe('At a stop for "error": what the adapter said.'),
  workdir_frame: z
    .object({ id: z.number().int(), ...located })
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
  location: z.object(located).optional(),
  frames: z.array(frame).optional(),
  locals: z.array(variable).optional(),
  exit_code: z.number().int().optional(),
  watches: z
    .array(z.object({ expression: z.string(), value: z.string() }))
    .optional()
    .describe("At a stop: each watch expression's value in the top frame."),
  logged: z
    .array(z.string())
    .optional()
    .describe("What logpoints printed since the last answer (the last 20 lines)."),
  logged_total: z
    .number()
    .int()
    .optional()
    .describe("How many lines logpoints printed since the last answer."),
};
export type StopReport = z.infer<z.ZodObject<typeof stopReportShape>>;
export type SessionState = StopReport["state"];
export type Frame = z.infer<typeof frame>;
export type Variable = z.infer<typeof variable>;

export const debugOutput = {
  operation: z.string(),
  ...stopReportShape,
  hits: z
    .array(
      z.object({
        values: z.array(z.object({ expression: z.string(), value: z.string() })),
        frames: z.array(z.string()),
      }),
    )
    .optional()
    .describe("snapshot: each hit's values and its top frames."),
  ended: z.string().optional().describe("snapshot: why recording ended."),
  state: z.enum(["running", "stopped", "exited", "none"]).optional(),
  variables: z.array(variable).optional(),
  total: z.number().int().optional(),
  complete: z
    .boolean()
    .optional()
    .describe(
      "variables and output: false when something was cut (children past the limit, long values, early output).",
    ),
  incomplete_because: z.array(z.string()).optional(),
  scopes: z.array(z.object({ name: z.string(), reference: z.number().int() })).optional(),
  threads: z.array(z.object({ id: z.number().int(), name: z.string() })).optional(),
  result: z.string().optional(),
  output: z.string().optional(),
  breakpoints: z
    .array(
      z.object({
        path: z.string(),
        results: z.array(
          z.object({
            line: z.number().int(),
            name: z.string().optional(),
            verified: z.boolean(),
            actual_line: z.number().int().optional(),
            message: z.string().optional(),
          }),
        ),
      }),
    )
    .optional(),
  adapters: z.array(z.object({ id: z.string(), usable: z.boolean(), detail: z.string() })).optional(),
  exception_filters: z
    .array(z.string())
    .optional()
    .describe(
      "breakpoints with exception_breakpoints: the filters now asked for; status: the adapter's filters.",
    ),
};

/** What every debug operation answers: text for the model, the structured result for the harness. */
export interface DebugAnswer {
  text: string;
  structured: z.infer<z.ZodObject<typeof debugOutput>>;
}
