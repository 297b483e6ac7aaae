/**
 * One cell on a kernel: what it printed (bounded), its last value, every display (images as images), a clean
 * traceback. input_request messages carry tool() calls from the cell (the bridge) and are answered here. The cell
 * has an idle budget: no message for that long and it is interrupted; the clock stops while a bridged call runs.
 */
import type { Kernel, KernelMessage } from "@jupyterlab/services";
import { TerminalText } from "../files/terminal-text.js";
import { withoutTerminalEscapes } from "../files/visible.js";
import { displayText, HTML_BUDGET, type HtmlBudget } from "./displays.js";

export interface CellImage {
  readonly mimeType: string;
  readonly data: string;
}

export interface CellResult {
  status: "ok" | "error" | "interrupted" | "died";
  text: string;
  images: CellImage[];
  error?: { name: string; value: string; traceback: string };
  droppedBytes: number;
  /** Why the kernel went away, when it was not the kernel process itself (e.g. "the Jupyter server exited"). */
  diedBecause?: string;
  /** Why an interrupted cell was interrupted: no output for the idle budget, or past the cell limit. */
  interruptedBy?: "idle" | "limit";
  /** How many times the cell cleared its output (clear_output): what is kept came after the last. */
  clears?: number;
  /** Images past the answer's budget: not sent, counted. */
  droppedImages?: { count: number; bytes: number };
}

export const BRIDGE_PREFIX = "\u0000runbound-tool:";
const STREAM_LIMIT = 32 * 1024;
/** An answer carries at most this many images and bytes of them (base64); the rest are counted. */
export const IMAGE_LIMIT = { count: 8, bytes: 8 * 1024 * 1024 };
/** An exception's message and traceback as the model reads them: a 20 MB message answered 40 MB (seen). */
const ERROR_VALUE_LIMIT = 2000;
const TRACEBACK_LIMIT = 16 * 1024;
/** How long a cell that printed nothing waits for output published after its reply. */
const LATE_OUTPUT_MS = 150;

export interface CellOptions {
  readonly idleMs: number;
  /** The cell's hard limit, output or not: past it the cell is interrupted as on the idle budget. */
  readonly maxMs: number;
  /** After an interrupt, how long the cell may take to stop before the kernel counts as gone. */
  readonly interruptGraceMs: number;
  /** Answers a tool() call from the cell: the JSON line the kernel reads back. */
  readonly bridge: (request: string) => Promise<string>;
  readonly signal: AbortSignal;
  /** Aborted (with the reason as a string) when the kernel is gone for a cause the kernel cannot report. */
  readonly lost?: AbortSignal;
  readonly onActivity?: () => void;
  /** Sees every IOPub message of the cell as it comes (notebook_run stores the outputs as Jupyter does). */
  readonly record?: (msg: KernelMessage.IIOPubMessage) => void;
}

export async function runCell(
  kernel: Kernel.IKernelConnection,
  code: string,
  options: CellOptions,
): Promise<CellResult> {
  const result: CellResult = { status: "ok", text: "", images: [], droppedBytes: 0 };
  const output = new TerminalText(STREAM_LIMIT, () => {
    result.images = [];
    delete result.droppedImages;
  });
  // Kept open after done (disposeOnDone false): Deno's kernel can publish the result after the reply and the
  // idle status (seen under load), and a disposed future drops it.
  const future = kernel.requestExecute(
    { code, stop_on_error: false, allow_stdin: true, store_history: true },
    false,
  );
  let idle: NodeJS.Timeout | undefined;
  let bridging = false;
  let interrupted = false;
  // The kernel cannot be reached: its server is gone or the connection gave up reconnecting.
  let unreachable: ((why: string) => void) | undefined;
  let grace: NodeJS.Timeout | undefined;
  // Interrupt; a cell that ignores it (a handler swallowing KeyboardInterrupt, native code blocking SIGINT) would
  // hold the kernel forever, so after the grace the kernel counts as gone and is shut down by the caller.
  const interrupt = (by: "idle" | "limit" = "idle") => {
    interrupted = true;
    result.interruptedBy ??= by;
    void kernel
      .interrupt()
      .catch((error: unknown) =>
        unreachable?.(`the kernel could not be reached to interrupt it (${(error as Error).message})`),
      );
    grace ??= setTimeout(
      () =>
        unreachable?.(
          `it did not stop within ${Math.round(options.interruptGraceMs / 1000)} s of an interrupt, so runbound shut the kernel down`,
        ),
      options.interruptGraceMs,
    );
  };
  const arm = () => {
    clearTimeout(idle);
    if (bridging) return;
    idle = setTimeout(() => interrupt("idle"), options.idleMs);
  };
  arm();
  const limit = setTimeout(() => interrupt("limit"), options.maxMs);
  const onAbort = () => interrupt();
  options.signal.addEventListener("abort", onAbort, { once: true });
  const html: HtmlBudget = { chars: HTML_BUDGET };
  future.onIOPub = (msg) => {
    arm();
    options.onActivity?.();
    options.record?.(msg);
    takeOutput(msg, result, output, html);
  };
  future.onStdin = (msg) =>
    answerInput(future, msg, options.bridge, (busy) => {
      bridging = busy;
      if (busy) clearTimeout(idle);
      else arm();
    });
  const watched = watchKernel(kernel, options.lost, (why) => {
    result.diedBecause ??= why;
  });
  unreachable = watched.unreachable;
  const died = watched.died;
  try {
    const outcome = await Promise.race([future.done, died]);
    if (outcome === "died") {
      result.status = "died";
    } else if (outcome.content.status === "error") {
      result.status = interrupted ? "interrupted" : "error";
    } else if (output.empty && result.images.length === 0) {
      await new Promise((r) => setTimeout(r, LATE_OUTPUT_MS));
    }
  } catch {
    result.status = interrupted ? "interrupted" : "died";
  } finally {
    watched.cleanup();
    clearTimeout(idle);
    clearTimeout(limit);
    clearTimeout(grace);
    options.signal.removeEventListener("abort", onAbort);
    future.dispose();
  }
  if (interrupted && result.status === "error") result.status = "interrupted";
  result.text = output.text;
  result.droppedBytes = output.dropped;
  if (output.clears) result.clears = output.clears;
  return result;
}

/** A cell's input request: a tool() call through the bridge (the idle budget paused meanwhile), else empty. */
function answerInput(
  future: Pick<Kernel.IShellFuture, "sendInputReply">,
  msg: KernelMessage.IStdinMessage,
  bridge: (request: string) => Promise<string>,
  bridging: (busy: boolean) => void,
): void {
  if (msg.header.msg_type !== "input_request") return;
  const request = msg as KernelMessage.IInputRequestMsg;
  const prompt = request.content.prompt;
  bridging(true);
  const answer = prompt.startsWith(BRIDGE_PREFIX)
    ? bridge(prompt.slice(BRIDGE_PREFIX.length))
    : Promise.resolve("");
  void answer.then((value) => {
    bridging(false);
    future.sendInputReply({ status: "ok", value }, request.header);
  });
}

/** What one IOPub message adds to the result: stream text, a displayed value or image, an error. */
function takeOutput(
  msg: KernelMessage.IIOPubMessage,
  result: CellResult,
  output: TerminalText,
  html: HtmlBudget,
): void {
  const type = msg.header.msg_type;
  // What runbound's Jupyter server cut from a message too large to carry (python/jupyter-server-config.py).
  const cut = (msg.content as { runbound_dropped?: number | Record<string, number> }).runbound_dropped;
  if (type === "stream") {
    const stream = (msg as KernelMessage.IStreamMsg).content;
    output.write(withoutTerminalEscapes(stream.text), stream.name);
    if (typeof cut === "number") output.dropped += cut;
  } else if (type === "clear_output") {
    output.clear((msg as KernelMessage.IClearOutputMsg).content.wait);
  } else if (type === "execute_result" || type === "display_data") {
    const data = (msg as KernelMessage.IExecuteResultMsg).content.data;
    const png = data["image/png"];
    output.beforeImage();
    for (const [mime, size] of typeof cut === "object" ? Object.entries(cut) : []) {
      const plain = data["text/plain"];
      if (mime === "text/plain") output.dropped += size - (typeof plain === "string" ? plain.length : 0);
      if (mime === "text/plain") continue;
      if (mime.startsWith("image/")) countDroppedImage(result, size);
      else
        output.block(`(${mime} of ${size.toLocaleString("en-US")} characters not shown: too large to carry)`);
    }
    if (typeof png === "string") keepImage(result, png.replace(/\n/g, ""));
    const text = displayText(
      data,
      typeof png === "string",
      typeof cut === "object" ? Object.keys(cut) : [],
      html,
    );
    if (text !== undefined) output.block(withoutTerminalEscapes(text));
  } else if (type === "error") {
    const content = (msg as KernelMessage.IErrorMsg).content;
    // The lengths of what the server cut (a value or a line of many megabytes), so the answer says them right.
    const lengths = typeof cut === "object" ? cut : {};
    result.error = {
      name: content.ename,
      value: clipEnd(content.evalue, ERROR_VALUE_LIMIT, lengths.value),
      traceback: clipMiddle(
        withoutTerminalEscapes(content.traceback.join("\n"))
          .split("\n")
          .map((line, i) => clipEnd(line, ERROR_VALUE_LIMIT, lengths[String(i)]))
          .join("\n"),
        TRACEBACK_LIMIT,
      ),
    };
  }
}

/** A kernel status that means it is gone: it died, or its server restarts it (its state lost either way). */
export function isGone(status: Kernel.Status): boolean {
  return status === "dead" || status === "autorestarting" || status === "restarting";
}

/** Calls `gone` the first time the kernel goes (isGone); the function returned stops watching. */
export function onGone(kernel: Kernel.IKernelConnection, gone: () => void): () => void {
  const watch = (_sender: Kernel.IKernelConnection, status: Kernel.Status) => {
    if (!isGone(status)) return;
    stop();
    gone();
  };
  const stop = () => kernel.statusChanged.disconnect(watch);
  kernel.statusChanged.connect(watch);
  return stop;
}

/**
 * Whether the kernel goes away under the cell: it died or restarted, its connection was lost for good, or the
 * caller says its server is gone (`lost`). `unreachable` ends the cell as died, with why.
 */
function watchKernel(
  kernel: Kernel.IKernelConnection,
  lost: AbortSignal | undefined,
  because: (why: string) => void,
): { died: Promise<"died">; unreachable: (why: string) => void; cleanup: () => void } {
  let resolveDied!: (value: "died") => void;
  const died = new Promise<"died">((resolve) => {
    resolveDied = resolve;
  });
  const unreachable = (why: string) => {
    because(why);
    resolveDied("died");
  };
  // A kernel that died takes its connection with it: that is not a second, different cause.
  let dead = false;
  const stopWatching = onGone(kernel, () => {
    dead = true;
    resolveDied("died");
  });
  const onConnection = (_: unknown, status: Kernel.ConnectionStatus) => {
    if (status === "disconnected" && !dead)
      unreachable("the connection to the kernel was lost and not restored");
  };
  const onLost = () => unreachable(String(lost?.reason ?? "the kernel is gone"));
  kernel.connectionStatusChanged.connect(onConnection);
  if (lost?.aborted) onLost();
  else lost?.addEventListener("abort", onLost, { once: true });
  const cleanup = () => {
    stopWatching();
    kernel.connectionStatusChanged.disconnect(onConnection);
    lost?.removeEventListener("abort", onLost);
  };
  return { died, unreachable, cleanup };
}

function keepImage(result: CellResult, data: string): void {
  const used = result.images.reduce((n, image) => n + image.data.length, 0);
  if (result.images.length < IMAGE_LIMIT.count && used + data.length <= IMAGE_LIMIT.bytes) {
    result.images.push({ mimeType: "image/png", data });
    return;
  }
  countDroppedImage(result, data.length);
}

/** An image not carried in the answer, by the length of its base64 text. */
function countDroppedImage(result: CellResult, base64Length: number): void {
  const dropped = result.droppedImages ?? { count: 0, bytes: 0 };
  dropped.count++;
  dropped.bytes += Math.floor((base64Length * 3) / 4);
  result.droppedImages = dropped;
}

/** `text` cut at `max`, saying how long it was (`length`: when the text is already a cut of a longer one). */
function clipEnd(text: string, max: number, length: number = text.length): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${length.toLocaleString("en-US")} characters)`;
}

function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n… (${(text.length - max).toLocaleString("en-US")} characters cut from the middle) …\n${text.slice(-half)}`;
}

/**
 * A cell's result, plus whether it ran on a fresh kernel (after `reset`, or because the state was lost before), and
 * what the first cell of a kernel must know about where it runs.
 */
export type CellOutcome = CellResult & { restarted: boolean; lostBefore?: string; notice?: string };
