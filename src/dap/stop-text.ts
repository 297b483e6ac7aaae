/** A stop, an exit or a run as the model reads it: where, why, the frames and locals, what logpoints printed. */

import { shownPath } from "../files/visible.js";
import type { StopReport } from "./session.js";

export function describeStop(report: StopReport): string {
  return [describeState(report), ...loggedLines(report)].join("\n");
}

/** What logpoints printed since the last answer: the count, and the last lines. */
function loggedLines(report: StopReport): string[] {
  const total = report.logged_total ?? 0;
  if (total === 0) return [];
  const shown = report.logged ?? [];
  const last = total > shown.length ? ` (the last ${shown.length})` : "";
  return [
    `Logpoints printed ${total === 1 ? "1 line" : `${total} lines`} since the last answer${last}:`,
    ...shown.map((line) => `  ${cut(line, 200)}`),
  ];
}

function describeState(report: StopReport): string {
  if (report.state === "exited" && report.error)
    return `${report.error.replace(/^the/, "The")}; the program went with it. Launch again.`;
  if (report.state === "exited")
    return `The program exited${report.exit_code !== undefined ? ` with code ${report.exit_code}` : ""}. Its stdout/stderr: the output operation.`;
  if (report.state === "running")
    return "The program is running and has not stopped within the deadline; use pause, or status later.";
  const lines = [
    `Stopped (${report.reason}) in thread ${report.thread_id}${report.location ? ` at ${shownPath(report.location.path)}:${report.location.line} in ${report.location.function}` : ""}`,
  ];
  if (report.location?.source) lines.push(`  ${report.location.line}  ${report.location.source}`);
  if (report.error) lines.push(`Error: ${report.error}`);
  if (report.exception)
    lines.push(
      `Exception: ${report.exception.id && !report.exception.description.startsWith(report.exception.id) ? `${report.exception.id}: ` : ""}${report.exception.description}`,
    );
  if (report.workdir_frame) {
    const own = report.workdir_frame;
    lines.push(
      `First frame in the workdir: #${own.id} ${own.function} at ${shownPath(own.path)}:${own.line}`,
    );
    if (own.source) lines.push(`  ${own.line}  ${own.source}`);
  }
  if (report.frames?.length)
    lines.push(
      `Frames: ${report.frames.map((f) => `#${f.id} ${f.name}${f.line ? `:${f.line}` : ""}`).join(" ← ")}`,
    );
  if (report.locals?.length)
    lines.push(`Locals: ${report.locals.map((v) => `${v.name} = ${cut(v.value, 60)}`).join("; ")}`);
  if (report.watches?.length)
    lines.push(`Watch: ${report.watches.map((w) => `${w.expression} = ${w.value}`).join("; ")}`);
  if (report.unavailable?.length)
    lines.push(`Not available at this stop: ${report.unavailable.join("; ")}. status asks again.`);
  return lines.join("\n");
}

/** `text` cut at `max` characters, saying how many more there were (evaluate or variables give a value whole). */
function cut(text: string, max: number): string {
  return text.length > max
    ? `${text.slice(0, max)}… (+${(text.length - max).toLocaleString("en-US")} characters)`
    : text;
}
