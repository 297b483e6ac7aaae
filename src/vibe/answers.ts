/** The text the vibe_* tools answer about workers. */
import type { WorkerView } from "./schema.js";

const RESULT_PREVIEW = 300;

/** A worker's result on one line, cut at the preview's length with how much was left out. */
export function preview(result: string | undefined): string {
  if (!result) return "";
  const one = result.trim().replace(/\s+/g, " ");
  if (one.length <= RESULT_PREVIEW) return one;
  return `${one.slice(0, RESULT_PREVIEW)}… (+${(one.length - RESULT_PREVIEW).toLocaleString("en-US")} characters; vibe_wait gives it whole)`;
}

export function workerLine(w: WorkerView): string {
  return `${w.id} "${w.label}" (${w.tier}): ${w.status}, ${w.elapsed_seconds} s, last activity ${w.last_activity_seconds_ago} s ago${w.result ? ` — ${preview(w.result)}` : ""}`;
}

export function spawned(w: WorkerView): string {
  return `Started ${w.id} "${w.label}" (${w.tier}). vibe_wait ${w.id} for its result.`;
}

export function restarted(w: WorkerView, interrupted: string): string {
  return `Restarted ${w.id} with the added message (${interrupted}).`;
}

export function waited(w: WorkerView, timedOut: boolean, timeoutSeconds: number): string {
  return timedOut
    ? `${w.id} is still ${w.status} after ${timeoutSeconds} s (last activity ${w.last_activity_seconds_ago} s ago). Wait again, send it a message, or kill it.`
    : `${w.id} ${w.status} after ${w.elapsed_seconds} s.${w.result ? `\n${w.result}` : ""}`;
}

export function killed(w: WorkerView): string {
  return `${w.id} is ${w.status}.`;
}

export function listed(workers: readonly WorkerView[]): string {
  return workers.length ? workers.map(workerLine).join("\n") : "No workers yet (vibe_spawn starts one).";
}
