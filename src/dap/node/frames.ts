/**
 * A paused program's frames, scopes and variables as DAP tells them, from V8's call frames: ids handed out at a
 * stop are good until the program runs again (as VS Code's are).
 */
import type { DebugProtocol } from "@vscode/debugprotocol";
import type CDP from "chrome-remote-interface";
import type { Protocol } from "devtools-protocol";
import type { Scripts } from "./scripts.js";
import { cutText, typeOf, valueText } from "./values.js";

type CallFrame = Protocol.Debugger.CallFrame;

/** The most variables one request answers without a count. */
const MAX_CHILDREN = 1000;
type RemoteObject = Protocol.Runtime.RemoteObject;

/** What a variables reference stands for: one of a frame's scopes, or an object's properties. */
type Container =
  | { readonly kind: "scope"; readonly frame: CallFrame; readonly index: number }
  | { readonly kind: "object"; readonly objectId: string };

const SCOPE_TITLES: Record<string, string> = {
  local: "Local",
  closure: "Closure",
  block: "Block",
  script: "Script",
  module: "Module",
  global: "Global",
  catch: "Catch",
  with: "With",
  eval: "Eval",
};

export class PausedState {
  readonly #frames: CallFrame[];
  readonly #containers = new Map<number, Container>();
  #next: number;

  constructor(
    readonly paused: Protocol.Debugger.PausedEvent,
    private readonly cdp: CDP.Client,
    private readonly scripts: Scripts,
    /** Where this stop's ids begin: each thread numbers its frames and references in a range of its own. */
    private readonly base = 0,
  ) {
    this.#frames = paused.callFrames;
    this.#next = base + 1000;
  }

  get top(): CallFrame | undefined {
    return this.#frames[0];
  }

  /** Frame ids are their index past the base: V8's call frame ids are strings. */
  frame(id: number): CallFrame | undefined {
    return this.#frames[id - this.base];
  }

  stackTrace(start = 0, levels = 0): { stackFrames: DebugProtocol.StackFrame[]; totalFrames: number } {
    const end = levels > 0 ? start + levels : this.#frames.length;
    const stackFrames = this.#frames.slice(start, end).map((frame, i) => {
      const at = this.scripts.original(frame.location);
      const source: DebugProtocol.Source = at.file
        ? { name: at.name, path: at.file }
        : { name: at.name, presentationHint: "deemphasize" };
      return {
        id: this.base + start + i,
        name: frame.functionName || "<anonymous>",
        source,
        line: at.line,
        column: at.column,
      };
    });
    return { stackFrames, totalFrames: this.#frames.length };
  }

  scopes(frameId: number): DebugProtocol.Scope[] | undefined {
    const frame = this.frame(frameId);
    if (!frame) return undefined;
    return frame.scopeChain.map((scope, index) => ({
      name: `${SCOPE_TITLES[scope.type] ?? scope.type}${scope.name && scope.type === "closure" ? ` (${scope.name})` : ""}`,
      variablesReference: this.#hold({ kind: "scope", frame, index }),
      expensive: scope.type === "global",
    }));
  }

  async variables(reference: number, start = 0, count = 0): Promise<DebugProtocol.Variable[] | undefined> {
    const container = this.#containers.get(reference);
    if (!container) return undefined;
    const objectId =
      container.kind === "scope"
        ? container.frame.scopeChain[container.index]!.object.objectId!
        : container.objectId;
    const got = await this.cdp.Runtime.getProperties({
      objectId,
      ownProperties: true,
      generatePreview: true,
    });
    const named: [string, RemoteObject | undefined, string?][] = [];
    if (container.kind === "scope" && container.index === 0 && container.frame.this.type !== "undefined")
      named.push(["this", container.frame.this]);
    for (const p of got.result) {
      if (p.value) named.push([p.name, p.value]);
      else if (p.get && p.get.type !== "undefined") named.push([p.name, undefined, "(…) getter"]);
    }
    // [[Entries]] of a Map or Set, [[Target]] of a proxy, a bound function's target; the prototype is left out.
    for (const p of got.internalProperties ?? [])
      if (p.value && p.name !== "[[Prototype]]") named.push([p.name, p.value]);
    // A million-element array is not sent whole: runbound's answers list at most a thousand children.
    const end = count > 0 ? start + count : Math.min(named.length, start + MAX_CHILDREN);
    const sent = named.slice(start, end).map(([name, value, text]) => this.variable(name, value, text));
    const left = count > 0 ? 0 : named.length - end;
    // Said as the last row, so a count of what was sent is never taken for the whole.
    return left > 0 ? [...sent, { name: "…", value: `${left} more not sent`, variablesReference: 0 }] : sent;
  }

  /** A value as a DAP variable: objects get a reference to open them. */
  variable(name: string, value: RemoteObject | undefined, text?: string): DebugProtocol.Variable {
    if (!value) return { name, value: text ?? "undefined", variablesReference: 0 };
    const reference =
      value.objectId && (value.type === "object" || value.type === "function") && value.subtype !== "null"
        ? this.#hold({ kind: "object", objectId: value.objectId })
        : 0;
    return { name, value: valueText(value), type: typeOf(value), variablesReference: reference };
  }

  /** Sets a variable of a scope or a property of an object to what `expression` evaluates to, in the top frame. */
  async set(reference: number, name: string, expression: string, frameId: number): Promise<RemoteObject> {
    const container = this.#containers.get(reference);
    if (!container) throw new Error(`unknown variables reference ${reference}`);
    const frame = container.kind === "scope" ? container.frame : (this.frame(frameId) ?? this.#frames[0]!);
    const value = await this.evaluate(expression, frame);
    const argument = callArgument(value);
    if (container.kind === "scope") {
      if (name === "this") throw new Error("`this` cannot be set");
      await this.cdp.Debugger.setVariableValue({
        scopeNumber: container.index,
        variableName: name,
        newValue: argument,
        callFrameId: container.frame.callFrameId,
      });
    } else {
      const set = await this.cdp.Runtime.callFunctionOn({
        objectId: container.objectId,
        functionDeclaration: "function (name, value) { this[name] = value; }",
        arguments: [{ value: name }, argument],
      });
      if (set.exceptionDetails) throw new Error(exceptionText(set.exceptionDetails));
    }
    return value;
  }

  /** An expression's value in a frame; an exception is thrown with the message the program would print. */
  async evaluate(expression: string, frame: CallFrame | undefined = this.#frames[0]): Promise<RemoteObject> {
    const got = frame
      ? await this.cdp.Debugger.evaluateOnCallFrame({
          callFrameId: frame.callFrameId,
          expression,
          generatePreview: true,
        })
      : await this.cdp.Runtime.evaluate({ expression, generatePreview: true, replMode: true });
    if (got.exceptionDetails) throw new Error(exceptionText(got.exceptionDetails));
    return got.result;
  }

  /** A logpoint's message with each {expression} evaluated in the top frame (an error said in its place). */
  async logLine(message: string): Promise<string> {
    const out: string[] = [];
    for (const part of message.split(/(\{[^{}]+\})/)) {
      if (!/^\{[^{}]+\}$/.test(part)) out.push(part);
      else
        out.push(
          await this.evaluate(part.slice(1, -1)).then(
            (v) => (v.type === "string" ? cutText(String(v.value)) : valueText(v)),
            (e: Error) => `<${e.message}>`,
          ),
        );
    }
    return out.join("");
  }

  /** What was thrown, when the program stopped at an exception. */
  exceptionInfo(): DebugProtocol.ExceptionInfoResponse["body"] {
    if (this.paused.reason !== "exception" && this.paused.reason !== "promiseRejection")
      throw new Error("the program is not stopped at an exception");
    const error = this.paused.data as (RemoteObject & { uncaught?: boolean }) | undefined;
    const description = cutText(error?.description ?? valueText(error ?? { type: "undefined" }));
    const [message = "", ...stack] = description.split("\n");
    return {
      exceptionId: error?.className ?? error?.type ?? "exception",
      description: message,
      breakMode: error?.uncaught ? "unhandled" : "always",
      details: {
        message,
        ...(error?.className ? { typeName: error.className } : {}),
        stackTrace: stack.join("\n"),
      },
    };
  }

  #hold(container: Container): number {
    const id = this.#next++;
    this.#containers.set(id, container);
    return id;
  }
}

export function callArgument(value: RemoteObject): Protocol.Runtime.CallArgument {
  if (value.objectId) return { objectId: value.objectId };
  if (value.unserializableValue) return { unserializableValue: value.unserializableValue };
  return { value: value.value };
}

/** "ReferenceError: nope is not defined", without the stack V8 adds to an error's description. */
export function exceptionText(details: Protocol.Runtime.ExceptionDetails): string {
  const described = details.exception?.description ?? details.exception?.value;
  const text = typeof described === "string" ? described : details.text;
  return text.split("\n")[0]!.replace(/^Uncaught /, "");
}
