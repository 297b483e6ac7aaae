/**
 * What a cell shows: a value's MIME bundle (an object may give its own through `Symbol.for("Jupyter.display")`, the
 * convention Deno's kernel uses), and the `display` global a cell calls for rich output.
 */
import { inspect } from "node:util";

export type MimeBundle = Record<string, unknown>;

const DISPLAY = Symbol.for("Jupyter.display");

export function mimeBundle(value: unknown): MimeBundle {
  if (typeof value === "object" && value !== null) {
    const own = (value as Record<symbol, unknown>)[DISPLAY];
    if (typeof own === "function") {
      const bundle = own.call(value);
      if (typeof bundle === "object" && bundle !== null) return bundle as MimeBundle;
    }
  }
  return { "text/plain": plain(value) };
}

export function plain(value: unknown): string {
  return inspect(value, { depth: 4, maxArrayLength: 100, maxStringLength: 10_000, breakLength: 100 });
}

function base64(data: Uint8Array | string): string {
  return typeof data === "string" ? data : Buffer.from(data).toString("base64");
}

/** `display(value)`, `display.html(…)`, `.markdown`, `.svg`, `.png`, `.jpeg`, `.json`: each sends its output now. */
export function displayGlobal(send: (bundle: MimeBundle) => void) {
  const display = (value: unknown, bundle?: MimeBundle) => send(bundle ?? mimeBundle(value));
  // One type each, as Deno's helpers send: the notebook (and runbound's answer) renders it.
  const text = (mime: string) => (content: string) => send({ [mime]: String(content) });
  return Object.assign(display, {
    html: text("text/html"),
    markdown: text("text/markdown"),
    svg: text("image/svg+xml"),
    png: (data: Uint8Array | string) => send({ "image/png": base64(data) }),
    jpeg: (data: Uint8Array | string) => send({ "image/jpeg": base64(data) }),
    json: (value: unknown) => send({ "application/json": value, "text/plain": plain(value) }),
  });
}
