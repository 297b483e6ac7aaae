/**
 * The debug tool's operations, one handler each (an operation without one is a type error, never a fall-through),
 * and the text the model reads of a stop.
 */

import { withCompleteness as completeness } from "../completeness.js";
import { ToolError } from "../errors.js";
import { plural } from "../files/text.js";
import { shownPath, visibleLine } from "../files/visible.js";
import { filtersOf, type LineBreakpoint } from "./breakpoints.js";
import type { DebugAnswer, DebugArgs, DebugOperation } from "./schema.js";
import type { DebugSession, StopReport } from "./session.js";
import { snapshot } from "./snapshot.js";
import { MAX_VALUE, wasCut } from "./stop-report.js";
import { describeStop } from "./stop-text.js";
import type { DebugSupervisor } from "./supervisor.js";

type Progress = (update: { progress: number; message?: string }) => Promise<void>;
type Operation = (
  args: DebugArgs,
  debug: DebugSupervisor,
  progress: Progress,
) => Promise<DebugAnswer> | DebugAnswer;

/** What each operation cannot do without, and what each of those arguments is. */
const NEEDS: Partial<Record<DebugOperation, readonly (keyof DebugArgs)[]>> = {
  launch: ["program"],
  attach: ["port"],
  scopes: ["frame_id"],
  variables: ["reference"],
  evaluate: ["expression"],
  set_variable: ["name", "value"],
  watch: ["watch"],
  run_to_line: ["file", "line"],
  snapshot: ["file", "line"],
};
const WHAT: Partial<Record<keyof DebugArgs, string>> = {
  file: "the source file",
  lines: "1-based lines; [] clears the file",
  program: "what to run",
  port: "where the program's debug server listens; or give `pid`, the process id of a running program",
  frame_id: "a frame id from stack",
  reference: "from scopes or variables",
  expression: "what to evaluate",
  name: "the variable, as scopes or variables list it",
  value: "the new value, an expression of the program's language",
  watch: "expressions to show at every stop; [] clears",
  line: "the 1-based line",
};

/** Every argument the operation needs is there: checked before approval, so no one is asked about a refusal. */
export function checkDebugArgs(args: DebugArgs): void {
  if (args.operation === "attach" && args.pid !== undefined && args.port !== undefined)
    throw new ToolError(
      "attach takes `port` (a program's debug server) or `pid` (a running program), not both.",
    );
  if (args.operation === "attach" && args.pid !== undefined) return;
  if (args.operation === "breakpoints") checkBreakpointArgs(args);
  else for (const key of NEEDS[args.operation] ?? []) need(args, key);
}

/** One kind of breakpoint per call: a file's lines (plain or with options), functions, or exception filters. */
function checkBreakpointArgs(args: DebugArgs): void {
  const kinds = (["lines", "breakpoints", "function_breakpoints", "exception_breakpoints"] as const).filter(
    (k) => args[k] !== undefined,
  );
  if (kinds.length === 0 && args.file !== undefined)
    throw new ToolError(
      "breakpoints with `file` needs `lines` (1-based lines; [] clears the file) or `breakpoints` (lines with a condition, hit_condition or log_message).",
    );
  if (kinds.length === 0)
    throw new ToolError(
      "breakpoints needs `file` with `lines` (or `breakpoints`, lines with options), or `function_breakpoints`, or `exception_breakpoints`.",
    );
  if (kinds.length > 1)
    throw new ToolError(
      `breakpoints takes one kind per call; got ${kinds.map((k) => `\`${k}\``).join(" and ")}. Set them in separate calls.`,
    );
  const lineKind = kinds[0] === "lines" || kinds[0] === "breakpoints";
  if (lineKind && args.file === undefined) need(args, "file");
  if (!lineKind && args.file !== undefined)
    throw new ToolError(`\`${kinds[0]}\` applies to the whole program; drop \`file\`.`);
}

function need<K extends keyof DebugArgs>(args: DebugArgs, key: K): NonNullable<DebugArgs[K]> {
  const value = args[key];
  if (value === undefined) throw new ToolError(`${args.operation} needs \`${String(key)}\` (${WHAT[key]}).`);
  return value as NonNullable<DebugArgs[K]>;
}

const STEPS = { continue: "continue", step_over: "next", step_in: "stepIn", step_out: "stepOut" } as const;

const resume: Operation = async (args, debug) => {
  const operation = args.operation as keyof typeof STEPS;
  const report = await debug.session(operation).resume(STEPS[operation], args.thread_id);
  return {
    text: `${describeStop(report)}${failedOutput(report, debug.running)}`,
    structured: { operation, ...report },
  };
};

/** Continues to a line through a breakpoint of its own, gone again at the stop: says whether the line was reached. */
const runToLine: Operation = async (args, debug) => {
  const {
    path,
    line,
    value: report,
  } = await debug.withLineBreakpoint(
    "run_to_line",
    need(args, "file"),
    need(args, "line"),
    undefined,
    (session) => session.resume("continue", args.thread_id),
  );
  const at = `${shownPath(path)}:${line}`;
  const reached =
    report.state === "stopped" && report.location?.line === line && report.location.path === path;
  const why =
    report.state === "exited"
      ? "the program ended first"
      : report.state === "running"
        ? "the program is still running (it may reach it later, but nothing stops it there now)"
        : "it stopped elsewhere first";
  const head = reached
    ? `Ran to ${at}; no breakpoint is left there.`
    : `Did not reach ${at}: ${why}; no breakpoint is left there.`;
  return {
    text: `${head}\n${describeStop(report)}${failedOutput(report, debug.running)}`,
    structured: { operation: "run_to_line", ...report },
  };
};

async function lineBreakpoints(args: DebugArgs, debug: DebugSupervisor): Promise<DebugAnswer> {
  const file = need(args, "file");
  const wanted: LineBreakpoint[] = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
  const { path, results, sent } = await debug.setBreakpoints(file, wanted);
  const shown = shownPath(path);
  const rows = results.map((r, i) => {
    const state = r.verified
      ? `verified${r.actual_line ? ` (moved to line ${r.actual_line})` : ""}`
      : `not verified${r.message ? `: ${r.message}` : ""}`;
    return `  ${shown}:${r.line}${optionsOf(wanted[i])} ${state}`;
  });
  const head = wanted.length
    ? `${wanted.length} breakpoint${wanted.length > 1 ? "s" : ""} in ${shown}${sent ? "" : " (set before launch)"}:`
    : `Cleared the breakpoints of ${shown}.`;
  return {
    text: [head, ...rows].join("\n"),
    structured: { operation: "breakpoints", breakpoints: [{ path, results }] },
  };
}

/** What was set before launch and the adapter then refused, said in the launch's answer. */
function notesText(notes: readonly string[]): string {
  return notes.map((n) => `\nNot set: ${n.replace(/\.$/, "")}.`).join("");
}

/** A breakpoint's options as the answer shows them: ` (if i == 6; hit > 5; logs "i={i}")`. */
function optionsOf(b: LineBreakpoint | undefined): string {
  if (!b) return "";
  const parts = [
    ...(b.condition !== undefined ? [`if ${b.condition}`] : []),
    ...(b.hit_condition !== undefined ? [`hit ${b.hit_condition}`] : []),
    ...(b.log_message !== undefined ? [`logs ${JSON.stringify(b.log_message)}`] : []),
  ];
  return parts.length ? ` (${parts.join("; ")})` : "";
}

async function functionBreakpoints(names: readonly string[], debug: DebugSupervisor): Promise<DebugAnswer> {
  const results = await debug.setFunctionBreakpoints(names);
  const rows = names.map((name, i) => {
    const r = results?.[i];
    if (!r) return `  ${name}: set before launch; sent when the program starts`;
    return `  ${name}: ${r.verified ? "verified" : `not verified${r.message ? `: ${r.message}` : ""}`}`;
  });
  return {
    text: names.length ? [`Function breakpoints:`, ...rows].join("\n") : "Cleared the function breakpoints.",
    structured: {
      operation: "breakpoints",
      breakpoints: [
        {
          path: "(functions)",
          results: names.map((name, i) => ({
            line: results?.[i]?.line ?? 0,
            name,
            verified: results?.[i]?.verified ?? false,
            ...(results?.[i]?.message ? { message: results[i]!.message! } : {}),
          })),
        },
      ],
    },
  };
}

async function exceptionBreakpoints(
  filters: readonly string[],
  debug: DebugSupervisor,
): Promise<DebugAnswer> {
  const sent = await debug.setExceptionBreakpoints(filters);
  const when = sent ? "" : " (set before launch; sent when the program starts)";
  return {
    text: filters.length
      ? `Stopping on exceptions: ${filters.join(", ")}${when}.`
      : `Not stopping on any exception${when}.`,
    structured: { operation: "breakpoints", exception_filters: [...filters] },
  };
}

export const OPERATIONS: Record<DebugOperation, Operation> = {
  adapters: (_args, debug) => {
    const adapters = debug.adapters();
    return {
      text: [
        ...adapters.map((a) => `${a.id}: ${a.usable ? "usable" : "not usable"} — ${a.detail}`),
        `Adapters and the programs they debug run ${debug.place}.`,
      ].join("\n"),
      structured: { operation: "adapters", adapters },
    };
  },
  status: async (_args, debug) => {
    const session = debug.running;
    if (!session)
      return { text: "No debug session is running.", structured: { operation: "status", state: "none" } };
    const report = await session.report();
    const filters = filtersOf(session.capabilities);
    const offered = filters.length
      ? `\nException filters (breakpoints exception_breakpoints): ${filters.join(", ")}.`
      : "";
    return {
      text: `Session: ${debug.describe(session)}, ${session.adapter.onHost ? "on the host (it joins a program running there)" : debug.place.replace(/:.*/, "")}.\n${describeStop(report)}${offered}`,
      structured: {
        operation: "status",
        ...report,
        exception_filters: (session.capabilities.exceptionBreakpointFilters ?? []).map((f) => f.filter),
      },
    };
  },
  breakpoints: (args, debug) => {
    if (args.function_breakpoints !== undefined) return functionBreakpoints(args.function_breakpoints, debug);
    if (args.exception_breakpoints !== undefined)
      return exceptionBreakpoints(args.exception_breakpoints, debug);
    return lineBreakpoints(args, debug);
  },
  launch: async (args, debug, progress) => {
    const program = need(args, "program");
    // A launch can outlast a client's request timeout (delve builds first; then up to the stop deadline): a beat
    // each second lets a client that resets its timeout on progress wait it out.
    const started = Date.now();
    const beat = setInterval(() => {
      const seconds = Math.round((Date.now() - started) / 1000);
      void progress({ progress: seconds, message: `launching ${program}: ${seconds} s` }).catch(
        () => undefined,
      );
    }, 1000);
    if (args.watch) debug.setWatch(args.watch);
    const { report, breakpoints, session, notes } = await debug
      .launch(program, args.args ?? [])
      .finally(() => clearInterval(beat));
    const verified = breakpoints.flatMap((b) =>
      b.results.map(
        (r) =>
          `${shownPath(b.path)}:${r.line} ${r.verified ? "verified" : `not verified${r.message ? ` (${r.message})` : ""}`}`,
      ),
    );
    const head = `Launched ${debug.describe(session)} with ${session.adapter.detail}.${verified.length ? `\nBreakpoints: ${verified.join("; ")}` : ""}${notesText(notes)}`;
    return {
      text: `${head}\n${describeStop(report)}${failedOutput(report, session)}`,
      structured: { operation: "launch", breakpoints, ...report },
    };
  },
  attach: async (args, debug) => {
    if (args.watch) debug.setWatch(args.watch);
    const { report, breakpoints, session, notes, outside } =
      args.pid !== undefined ? await debug.attachPid(args.pid) : await debug.attach(need(args, "port"));
    // Said in the answer as on the card: what a debugger on the host can do is not obvious from "attached".
    const onHost =
      args.pid !== undefined
        ? `\nThe debugger runs on the host beside pid ${args.pid}, outside the sandbox: an evaluate or set_variable makes that program run any code, as the harness's user.`
        : outside && debug.place.startsWith("confined")
          ? `\nThe program runs on the host, outside the run's sandbox: an evaluate or set_variable makes it run any code, as its user.`
          : "";
    return {
      text: `Attached to ${debug.describe(session)} with ${session.adapter.detail}.${onHost}${notesText(notes)}\n${describeStop(report)}`,
      structured: { operation: "attach", breakpoints, ...report },
    };
  },
  continue: resume,
  run_to_line: runToLine,
  snapshot,
  step_over: resume,
  step_in: resume,
  step_out: resume,
  pause: async (args, debug) => {
    const report = await debug.session("pause").pause(args.thread_id);
    return { text: describeStop(report), structured: { operation: "pause", ...report } };
  },
  threads: async (args, debug) => {
    const threads = await debug.session("threads").threads(args.all ?? false);
    return {
      text: threads.map((t) => `  ${t.id}  ${t.name}`).join("\n") || "No threads.",
      structured: { operation: "threads", threads },
    };
  },
  stack: async (args, debug) => {
    const frames = await debug.session("stack").stack(args.thread_id);
    return {
      text:
        frames
          .map(
            (f) =>
              `  #${f.id} ${f.name}${f.path ? ` (${shownPath(f.path)}:${f.line})` : f.origin ? ` (${visibleLine(f.origin.slice(0, 200))}:${f.line})` : ""}`,
          )
          .join("\n") || "No frames: the adapter listed none for this thread.",
      structured: { operation: "stack", frames },
    };
  },
  scopes: async (args, debug) => {
    const scopes = await debug.session("scopes").scopes(need(args, "frame_id"));
    return {
      text:
        scopes.map((s) => `  ${s.name}: reference ${s.reference}`).join("\n") ||
        `No scopes for frame ${args.frame_id}: take a frame id from the latest stack.`,
      structured: { operation: "scopes", scopes },
    };
  },
  variables: async (args, debug) => {
    const reference = need(args, "reference");
    const { variables, total } = await debug.session("variables").variables(reference);
    if (variables.length === 0)
      return {
        text: `Reference ${reference} has no children. A reference from scopes or variables holds until the program runs again; take a fresh one from the latest stop.`,
        structured: { operation: "variables", variables, total },
      };
    const more = total > variables.length ? `\n(showing ${variables.length} of ${total})` : "";
    const rows = variables.map(
      (v) =>
        `  ${v.name} = ${v.value}${v.type ? ` (${v.type})` : ""}${v.reference ? ` [reference ${v.reference}]` : ""}`,
    );
    const cut = variables.filter((v) => wasCut(v.value)).length;
    return completeness(
      { text: rows.join("\n") + more, structured: { operation: "variables", variables, total } },
      [
        total > variables.length && `showing ${variables.length} of ${total} children`,
        cut > 0 &&
          `${plural(cut, "value")} cut at ${MAX_VALUE} characters (${cut === 1 ? "its" : "their"} length said); evaluate an expression for a part of ${cut === 1 ? "it" : "them"}`,
      ],
    );
  },
  evaluate: async (args, debug) => {
    const { result, type } = await debug
      .session("evaluate")
      .evaluate(need(args, "expression"), args.frame_id);
    return {
      text: `${args.expression} = ${result}${type ? ` (${type})` : ""}`,
      structured: { operation: "evaluate", result },
    };
  },
  set_variable: async (args, debug) => {
    const name = need(args, "name");
    const { value, type } = await debug
      .session("set_variable")
      .setVariable(name, need(args, "value"), args.frame_id, args.reference);
    return {
      text: `${name} = ${value}${type ? ` (${type})` : ""}`,
      structured: { operation: "set_variable", result: value },
    };
  },
  watch: async (args, debug) => {
    const expressions = need(args, "watch");
    debug.setWatch(expressions);
    const session = debug.running;
    const now = session?.state === "stopped" ? await session.report() : undefined;
    const head = expressions.length
      ? `Watching ${expressions.map((e) => `\`${e}\``).join(", ")} at every stop.`
      : "No watch expressions.";
    const values = now?.watches?.map((w) => `  ${w.expression} = ${w.value}`) ?? [];
    return {
      text: [head, ...(values.length ? ["Now:", ...values] : [])].join("\n"),
      structured: { operation: "watch", ...(now?.watches ? { watches: now.watches } : {}) },
    };
  },
  output: (_args, debug) => {
    const session = debug.session("output");
    const { text, dropped } = session.output();
    // An attached program was started elsewhere: its output goes to that terminal unless the server forwards it.
    const none = session.attached
      ? "(no output received: the program was started outside runbound, so its output goes where it was started unless its debug server forwards it)"
      : "(no output yet)";
    return completeness(
      {
        text: `${dropped ? `(${dropped} earlier bytes dropped)\n` : ""}${text || none}`,
        structured: { operation: "output", output: text },
      },
      [dropped > 0 && `the ${dropped} earliest bytes of output were dropped (the newest are kept)`],
    );
  },
  terminate: async (_args, debug) => ({
    text: await debug.terminate(),
    structured: { operation: "terminate", state: "exited" },
  }),
};

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
