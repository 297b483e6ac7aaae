/**
 * The scripts V8 parsed and their source maps: a paused location in generated code is told as the line of the file
 * the user wrote (a .ts file run by tsx, or compiled with its map), and a breakpoint on that line is set where the
 * generated code for it is. V8 applies no source map itself; Chrome's DevTools and VS Code map on the client too.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  GREATEST_LOWER_BOUND,
  generatedPositionFor,
  LEAST_UPPER_BOUND,
  originalPositionFor,
  TraceMap,
} from "@jridgewell/trace-mapping";
import type { Protocol } from "devtools-protocol";

/** A map file larger than this is not read (a bundle's map can be hundreds of MB). */
const MAX_MAP_BYTES = 64 * 1024 * 1024;
/** How many lines below an original line without code a breakpoint may move to. */
const MOVE_LINES = 20;

export interface Script {
  readonly id: string;
  readonly url: string;
  /** The file it was loaded from, when it is one. */
  readonly file: string | undefined;
  readonly map: TraceMap | undefined;
  /** The original files its map names (real paths), and each one's source as the map names it. */
  readonly sources: ReadonlyMap<string, string>;
}

export interface GeneratedLocation {
  readonly scriptId: string;
  /** 0-based, as V8 counts. */
  readonly lineNumber: number;
  readonly columnNumber: number;
}

/** A place in the file the user wrote: 1-based line and column; no file for V8's own code (node:internal/…). */
export interface OriginalLocation {
  readonly file: string | undefined;
  readonly name: string;
  readonly line: number;
  readonly column: number;
}

export class Scripts {
  readonly #byId = new Map<string, Script>();

  /** A script V8 parsed; its source map read now (inline, or a file beside it). */
  add(event: Protocol.Debugger.ScriptParsedEvent): Script {
    const map = event.sourceMapURL ? loadMap(event.sourceMapURL, event.url) : undefined;
    const sources = new Map<string, string>();
    if (map)
      map.resolvedSources.forEach((resolved, i) => {
        const file = fileOf(resolved);
        if (file) sources.set(real(file), map.sources[i] ?? resolved);
      });
    const file = fileOf(event.url);
    const script: Script = { id: event.scriptId, url: event.url, file: file && real(file), map, sources };
    this.#byId.set(event.scriptId, script);
    return script;
  }

  get(scriptId: string): Script | undefined {
    return this.#byId.get(scriptId);
  }

  /** Whether a file is the original of a loaded script's source map (its lines are not the script's). */
  isMapped(file: string): boolean {
    const key = real(file);
    return [...this.#byId.values()].some((s) => s.sources.has(key));
  }

  /** The scripts whose maps name `file`, with where the generated code for `line` (1-based) is in each. */
  generated(file: string, line: number): { location: GeneratedLocation; line: number }[] {
    const key = real(file);
    const found: { location: GeneratedLocation; line: number }[] = [];
    for (const script of this.#byId.values()) {
      const source = script.sources.get(key);
      if (!script.map || source === undefined) continue;
      const at = firstCodeAtOrBelow(script.map, source, line);
      if (at) found.push({ location: { scriptId: script.id, ...at.generated }, line: at.line });
    }
    return found;
  }

  /** A paused location as the user's file tells it. */
  original(location: Protocol.Debugger.Location): OriginalLocation {
    const script = this.#byId.get(location.scriptId);
    const generated = {
      file: script?.file,
      name: script?.file ? path.basename(script.file) : script?.url || `script ${location.scriptId}`,
      line: location.lineNumber + 1,
      column: (location.columnNumber ?? 0) + 1,
    };
    if (!script?.map) return generated;
    const needle = { line: location.lineNumber + 1, column: location.columnNumber ?? 0 };
    let found = originalPositionFor(script.map, { ...needle, bias: GREATEST_LOWER_BOUND });
    if (found.source === null)
      found = originalPositionFor(script.map, { ...needle, bias: LEAST_UPPER_BOUND });
    if (found.source === null) return generated;
    const file = fileOf(found.source);
    return {
      file: file && real(file),
      name: path.basename(file ?? found.source),
      line: found.line,
      column: found.column + 1,
    };
  }

  /** The script loaded from `file` itself, if V8 parsed it (a plain .js file, no map). */
  byFile(file: string): Script[] {
    const key = real(file);
    return [...this.#byId.values()].filter((s) => s.file === key);
  }
}

/** The first generated code for an original line, or the next line with code within MOVE_LINES. */
function firstCodeAtOrBelow(
  map: TraceMap,
  source: string,
  line: number,
): { generated: { lineNumber: number; columnNumber: number }; line: number } | undefined {
  for (let l = line; l < line + MOVE_LINES; l++) {
    const at = generatedPositionFor(map, { source, line: l, column: 0, bias: LEAST_UPPER_BOUND });
    if (at.line !== null) return { generated: { lineNumber: at.line - 1, columnNumber: at.column }, line: l };
  }
  return undefined;
}

function loadMap(sourceMapURL: string, scriptUrl: string): TraceMap | undefined {
  try {
    if (sourceMapURL.startsWith("data:")) {
      const comma = sourceMapURL.indexOf(",");
      const meta = sourceMapURL.slice(5, comma);
      const body = sourceMapURL.slice(comma + 1);
      const text = meta.endsWith(";base64")
        ? Buffer.from(body, "base64").toString("utf8")
        : decodeURIComponent(body);
      return new TraceMap(text, scriptUrl);
    }
    const mapUrl = new URL(sourceMapURL, scriptUrl).href;
    const file = fileOf(mapUrl);
    if (!file || statSync(file).size > MAX_MAP_BYTES) return undefined;
    return new TraceMap(readFileSync(file, "utf8"), mapUrl);
  } catch {
    // A map that cannot be read or parsed: the script is shown as it runs.
    return undefined;
  }
}

/** The file a script's or a map source's URL names (file: URLs and absolute paths); none for node:, wasm:, http:. */
function fileOf(url: string): string | undefined {
  if (url.startsWith("file:")) {
    try {
      return fileURLToPath(url);
    } catch {
      return undefined;
    }
  }
  return path.isAbsolute(url) ? url : undefined;
}

const REAL = new Map<string, string>();

/** Node loads modules by their real path: a breakpoint's file is compared the same way. */
export function real(file: string): string {
  let found = REAL.get(file);
  if (found === undefined) {
    try {
      found = realpathSync(file);
    } catch {
      found = path.resolve(file);
    }
    REAL.set(file, found);
  }
  return found;
}

/** The URL pattern V8 matches a plain script's breakpoint by, before or after it loads. */
export function urlPattern(file: string): string {
  const url = pathToFileURL(real(file)).href;
  return `^${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;
}
