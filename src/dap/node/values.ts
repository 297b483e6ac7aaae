/**
 * A V8 value as the debug tool shows it: one line, as Chrome's and VS Code's consoles print it — a string quoted,
 * an object by its class and first properties (`Stock {items: Map(1), counts: Map(1)}`), an array by its length.
 */
import type { Protocol } from "devtools-protocol";

type RemoteObject = Protocol.Runtime.RemoteObject;
type ObjectPreview = Protocol.Runtime.ObjectPreview;

/** How many properties of a preview are shown before "…" (V8 previews at most 5 anyway). */
const PREVIEW_PROPERTIES = 5;

/**
 * Past this many characters a value is cut, its length said as runbound's answers say one (`… (N characters)`): a
 * program's 500 MB string would otherwise cross to the host whole, in one message, where answers show 400.
 */
const MAX_TEXT = 8192;

export function valueText(value: RemoteObject): string {
  return cutText(fullText(value));
}

/** A text past MAX_TEXT characters cut there, its whole length said. */
export function cutText(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… (${text.length} characters)` : text;
}

function fullText(value: RemoteObject): string {
  switch (value.type) {
    case "string":
      return JSON.stringify(value.value);
    case "undefined":
      return "undefined";
    case "function":
      return `ƒ ${functionHead(value.description ?? "")}`;
    case "object":
      if (value.subtype === "null") return "null";
      return value.preview ? previewText(value.preview) : (value.description ?? value.className ?? "Object");
    default:
      // number, boolean, bigint, symbol: V8's description is how the language writes it (1n, -0, Infinity).
      return value.unserializableValue ?? value.description ?? String(value.value);
  }
}

/** The type a variable line names: the class of an object, else the kind of value. */
export function typeOf(value: RemoteObject): string {
  if (value.type === "object") return value.subtype === "null" ? "null" : (value.className ?? "Object");
  return value.type;
}

/** A function's head without its body: `add(item, count = 1)`. */
function functionHead(source: string): string {
  const head = source
    .split("\n")[0]!
    .replace(/\s*\{.*$/, "")
    .replace(/^(async\s+)?function\s*\*?\s*/, "$1");
  return head.length > 80 ? `${head.slice(0, 79)}…` : head || "anonymous";
}

function previewText(preview: ObjectPreview): string {
  const more = preview.overflow ? ", …" : "";
  if (preview.subtype === "array" || preview.subtype === "typedarray") {
    const items = preview.properties.slice(0, PREVIEW_PROPERTIES).map(propertyText);
    return `${preview.description ?? "Array"} [${items.join(", ")}${more}]`;
  }
  if (preview.entries && (preview.subtype === "map" || preview.subtype === "set")) {
    const entries = preview.entries
      .slice(0, PREVIEW_PROPERTIES)
      .map((e) => (e.key ? `${objectBrief(e.key)} => ${objectBrief(e.value)}` : objectBrief(e.value)));
    return `${preview.description ?? preview.subtype} {${entries.join(", ")}${more}}`;
  }
  if (preview.subtype && preview.subtype !== "proxy") return preview.description ?? preview.subtype;
  const props = preview.properties.slice(0, PREVIEW_PROPERTIES).map((p) => `${p.name}: ${propertyText(p)}`);
  const name = preview.description && preview.description !== "Object" ? `${preview.description} ` : "";
  return `${name}{${props.join(", ")}${more}}`;
}

function propertyText(p: Protocol.Runtime.PropertyPreview): string {
  if (p.type === "string") return JSON.stringify(p.value ?? "");
  // As Chrome's console: a plain object inside a preview is {…}; an array, a Map or a class instance by its name.
  if (p.type === "object" && p.subtype !== "null") return !p.value || p.value === "Object" ? "{…}" : p.value;
  if (p.type === "function") return "ƒ";
  return p.value ?? p.type;
}

/** An entry's key or value inside a Map or Set preview. */
function objectBrief(e: ObjectPreview): string {
  if (e.type === "string") return JSON.stringify(e.description ?? "");
  if (e.type === "object" && e.subtype !== "null" && !e.subtype) {
    const props = e.properties.slice(0, 3).map((p) => `${p.name}: ${propertyText(p)}`);
    return `${e.description && e.description !== "Object" ? `${e.description} ` : ""}{${props.join(", ")}${e.overflow || e.properties.length > 3 ? ", …" : ""}}`;
  }
  return e.description ?? e.type;
}
