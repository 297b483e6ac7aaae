/**
 * Line breakpoints on V8: a plain script's by URL (V8 binds it when the script loads), a mapped file's (TypeScript)
 * in each loaded script generated from it — and, for a script not loaded yet, when it loads: the adapter stops
 * every script with a source map before it runs (an instrumentation breakpoint) and binds them then.
 */
import type { DebugProtocol } from "@vscode/debugprotocol";
import type CDP from "chrome-remote-interface";
import type { Protocol } from "devtools-protocol";
import { real, type Script, type Scripts, urlPattern } from "./scripts.js";

/** Files whose lines are never their script's own: what runs is what a loader or compiler made of them. */
const MAPPED_ONLY = /\.(ts|tsx|mts|cts)$/i;

/** What Node runs, by itself or through a loader (anything else only through a source map). */
const JAVASCRIPT = /\.(js|mjs|cjs|jsx|ts|tsx|mts|cts)$/i;

const HIT_CONDITION = /^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$/;

export interface Wanted {
  readonly id: number;
  readonly file: string;
  readonly line: number;
  readonly condition: string | undefined;
  readonly logMessage: string | undefined;
  readonly hitCondition: ((hits: number) => boolean) | undefined;
  /** V8's ids for it (one per script it is bound in, or one by URL). */
  readonly v8Ids: string[];
  hits: number;
  /** The line it is bound at, once bound (a line without code moves it down). */
  boundLine: number | undefined;
}

export class NodeBreakpoints {
  readonly #files = new Map<string, Wanted[]>();
  readonly #byV8Id = new Map<string, Wanted>();
  #nextId = 1;

  constructor(
    private readonly cdp: CDP.Client,
    private readonly scripts: Scripts,
    /** Says a breakpoint bound after its request was answered (a "breakpoint" event). */
    private readonly changed: (breakpoint: DebugProtocol.Breakpoint, wanted: Wanted) => void,
  ) {}

  /** Replaces the file's breakpoints; each answered bound (verified, at its line) or pending with why. */
  async set(
    file: string,
    requested: readonly DebugProtocol.SourceBreakpoint[],
  ): Promise<DebugProtocol.Breakpoint[]> {
    const key = real(file);
    for (const old of this.#files.get(key) ?? [])
      for (const id of old.v8Ids) {
        this.#byV8Id.delete(id);
        await this.cdp.Debugger.removeBreakpoint({ breakpointId: id }).catch(() => undefined);
      }
    const wanted: Wanted[] = [];
    const answers: DebugProtocol.Breakpoint[] = [];
    for (const b of requested) {
      const hit = b.hitCondition === undefined ? undefined : hitTest(b.hitCondition);
      if (hit === null) {
        answers.push({
          verified: false,
          line: b.line,
          message: `hit condition \`${b.hitCondition}\` is not understood: write N, == N, > N, >= N, < N, <= N or % N`,
        });
        continue;
      }
      const w: Wanted = {
        id: this.#nextId++,
        file: key,
        line: b.line,
        condition: b.condition,
        logMessage: b.logMessage,
        hitCondition: hit,
        v8Ids: [],
        hits: 0,
        boundLine: undefined,
      };
      wanted.push(w);
      await this.#bindEverywhere(w);
      answers.push(this.#answer(w));
    }
    this.#files.set(key, wanted);
    return answers;
  }

  /** A script with a source map, about to run: the breakpoints of the files it was made from are bound in it. */
  async scriptLoaded(script: Script): Promise<void> {
    for (const [file] of script.sources)
      for (const w of this.#files.get(file) ?? []) {
        const before = w.boundLine;
        await this.#bindMapped(w, [script.id]);
        if (before === undefined && w.boundLine !== undefined) this.changed(this.#answer(w), w);
      }
  }

  /** V8 bound a by-URL breakpoint in a script that loaded. */
  resolved(event: Protocol.Debugger.BreakpointResolvedEvent): void {
    const w = this.#byV8Id.get(event.breakpointId);
    if (!w || w.boundLine !== undefined) return;
    w.boundLine = event.location.lineNumber + 1;
    this.changed(this.#answer(w), w);
  }

  /**
   * The breakpoints at a paused frame's line whose condition (if any) holds there: V8 names none for the pause on
   * the program's first statement, though one may sit there.
   */
  async atPause(top: Protocol.Debugger.CallFrame): Promise<Wanted[]> {
    const file = this.scripts.get(top.location.scriptId)?.file;
    if (!file) return [];
    const here: Wanted[] = [];
    for (const w of this.#files.get(real(file)) ?? []) {
      if (w.boundLine !== top.location.lineNumber + 1) continue;
      if (w.condition) {
        const held = await this.cdp.Debugger.evaluateOnCallFrame({
          callFrameId: top.callFrameId,
          expression: w.condition,
          returnByValue: true,
        }).catch(() => undefined);
        if (!held?.result.value) continue;
      }
      here.push(w);
    }
    return here;
  }

  /** The id this side gave the breakpoint asked for at `file`:`line` (another thread's answers are said with it). */
  idFor(file: string, line: number): number | undefined {
    return this.#files.get(real(file))?.find((w) => w.line === line)?.id;
  }

  /** The breakpoints V8 says it stopped at. */
  hit(v8Ids: readonly string[]): Wanted[] {
    return [...new Set(v8Ids.map((id) => this.#byV8Id.get(id)).filter((w): w is Wanted => !!w))];
  }

  async #bindEverywhere(w: Wanted): Promise<void> {
    if (MAPPED_ONLY.test(w.file) || this.scripts.isMapped(w.file)) {
      await this.#bindMapped(w);
      return;
    }
    const set = await this.cdp.Debugger.setBreakpointByUrl({
      urlRegex: urlPattern(w.file),
      lineNumber: w.line - 1,
      ...(w.condition ? { condition: w.condition } : {}),
    });
    this.#remember(w, set.breakpointId);
    const at = set.locations[0];
    if (at) w.boundLine = at.lineNumber + 1;
  }

  /** Bound in each loaded script generated from the file (or only in `only`). */
  async #bindMapped(w: Wanted, only?: readonly string[]): Promise<void> {
    for (const { location, line } of this.scripts.generated(w.file, w.line)) {
      if (only && !only.includes(location.scriptId)) continue;
      const set = await this.cdp.Debugger.setBreakpoint({
        location,
        ...(w.condition ? { condition: w.condition } : {}),
      }).catch(() => undefined);
      if (!set) continue;
      this.#remember(w, set.breakpointId);
      w.boundLine ??= line;
    }
  }

  #remember(w: Wanted, v8Id: string): void {
    w.v8Ids.push(v8Id);
    this.#byV8Id.set(v8Id, w);
  }

  #answer(w: Wanted): DebugProtocol.Breakpoint {
    return w.boundLine !== undefined
      ? { id: w.id, verified: true, line: w.boundLine }
      : {
          id: w.id,
          verified: false,
          line: w.line,
          message: JAVASCRIPT.test(w.file)
            ? "pending: it is set when the script loads"
            : "pending: it is set if a script of the program is loaded from this file or mapped to it",
        };
  }
}

/** A hit condition as debugpy reads it ("5" is the 5th hit); null when it is not one. */
function hitTest(condition: string): ((hits: number) => boolean) | null {
  const m = HIT_CONDITION.exec(condition);
  if (!m) return null;
  const n = Number(m[2]);
  switch (m[1]) {
    case ">":
      return (h) => h > n;
    case ">=":
      return (h) => h >= n;
    case "<":
      return (h) => h < n;
    case "<=":
      return (h) => h <= n;
    case "%":
      return (h) => n > 0 && h % n === 0;
    default:
      return (h) => h === n;
  }
}
