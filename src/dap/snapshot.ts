/**
 * debug snapshot: a tracepoint. The program runs on through `file:line`; each hit records the expressions' values
 * (or the frame's locals) and the top frames, without the model asking at each stop — one call where a breakpoint,
 * continue, variables loop took dozens. Recording ends at `max_hits` (the program left stopped at the last hit), when
 * the program ends or stops elsewhere, or when the call's time is up; no breakpoint stays behind.
 */
import { errorMessage } from "../errors.js";
import { shownPath } from "../files/visible.js";
import type { DebugAnswer, DebugArgs, StopReport } from "./schema.js";
import type { DebugSession } from "./session.js";
import { clip } from "./stop-report.js";
import { describeStop } from "./stop-text.js";
import type { DebugSupervisor } from "./supervisor.js";

/** Each recorded value, as a watch shows it. */
const VALUE_CHARS = 400;
const FRAMES = 3;
const DEFAULT_HITS = 20;
/** The call answers within this (a client's request timeout is ~60 s). */
const BUDGET_MS = 45_000;

interface Hit {
  values: { expression: string; value: string }[];
  frames: string[];
}

export async function snapshot(args: DebugArgs, debug: DebugSupervisor): Promise<DebugAnswer> {
  const maxHits = args.max_hits ?? DEFAULT_HITS;
  const { path, line, value } = await debug.withLineBreakpoint(
    "snapshot",
    args.file!,
    args.line!,
    args.condition,
    (session, rel, at) => record(session, rel, at, args.expressions, maxHits),
  );
  const { hits, ended, report } = value;
  const rows = hits.map(
    (hit, i) =>
      `#${i + 1}  ${hit.values.map((v) => `${v.expression} = ${v.value}`).join("; ") || "(no locals)"}  — ${hit.frames.join(" ← ")}`,
  );
  const head = `Snapshot at ${shownPath(path)}:${line}: ${hits.length} hit${hits.length === 1 ? "" : "s"} (${ended}).`;
  return {
    text: [head, ...rows, "", describeStop(report)].join("\n"),
    structured: { operation: "snapshot", ...report, hits, ended },
  };
}

async function record(
  session: DebugSession,
  path: string,
  line: number,
  expressions: readonly string[] | undefined,
  maxHits: number,
): Promise<{ hits: Hit[]; ended: string; report: StopReport }> {
  const hits: Hit[] = [];
  const deadline = Date.now() + BUDGET_MS;
  for (;;) {
    const report = await session.resume("continue");
    if (report.state === "exited") return { hits, ended: "the program exited", report };
    if (report.state === "running")
      return { hits, ended: "the program runs on without passing the line within the stop deadline", report };
    if (report.location?.path !== path || report.location.line !== line)
      return {
        hits,
        ended: `it stopped elsewhere (${report.reason ?? "a stop"}); it is stopped there now`,
        report,
      };
    hits.push({
      values: await valuesAt(session, expressions, report),
      frames: (report.frames ?? [])
        .slice(0, FRAMES)
        .map((f) => `${f.name} (${f.path ? shownPath(f.path) : "?"}:${f.line ?? "?"})`),
    });
    if (hits.length >= maxHits)
      return { hits, ended: `max_hits ${maxHits} reached; the program is stopped at the last hit`, report };
    if (Date.now() > deadline)
      return { hits, ended: `${BUDGET_MS / 1000} s passed; the program is stopped at the last hit`, report };
  }
}

async function valuesAt(
  session: DebugSession,
  expressions: readonly string[] | undefined,
  report: StopReport,
): Promise<Hit["values"]> {
  if (!expressions)
    return (report.locals ?? []).map((v) => ({ expression: v.name, value: clip(v.value, VALUE_CHARS) }));
  const values: Hit["values"] = [];
  for (const expression of expressions) {
    const value = await session
      .evaluate(expression)
      .then((r) => clip(r.result, VALUE_CHARS))
      .catch((error: unknown) => `(error: ${clip(errorMessage(error), VALUE_CHARS)})`);
    values.push({ expression, value });
  }
  return values;
}
