/**
 * Runs a cell the way Chrome's console does: V8's REPL mode through an in-process inspector session, so top-level
 * `await` works, a cell's `let`/`const` stay for the next cell and may be declared again. The evaluation is entered
 * through a script with `breakOnSigint`, so a SIGINT (Jupyter's interrupt) stops a cell that never yields; one that
 * awaits forever is let go by the SIGINT handler, and the kernel keeps its state either way.
 */
import { Session } from "node:inspector";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";
import { IMPORTER, prepareCell, typeScriptCell } from "./source.js";

export type Outcome =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: "error"; readonly error: unknown }
  | { readonly kind: "interrupted" };

interface RemoteObject {
  readonly type: string;
  readonly value?: unknown;
  readonly unserializableValue?: string;
  readonly objectId?: string;
}

interface EvaluateReply {
  readonly result: RemoteObject;
  readonly exceptionDetails?: { readonly exception?: RemoteObject; readonly text: string };
}

const ENTER = "__runboundEnter";
const TAKEN = "__runboundTaken";

export class Evaluator {
  readonly #session = new Session();
  #global: string | undefined;
  /** Ends the cell now running, when a SIGINT comes while it awaits. */
  #letGo: (() => void) | undefined;

  constructor(cwd: string) {
    this.#session.connect();
    const scope = globalThis as Record<string, unknown>;
    // Modules resolve from the workdir, as a script there would: import() through Node's default loader from a
    // script named in the workdir, and require() made for a file there.
    const loader = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
    const named = path.join(cwd, "[cell]");
    scope[IMPORTER] = loader
      ? new vm.Script("(specifier, options) => import(specifier, options)", {
          filename: named,
          importModuleDynamically: loader,
        }).runInThisContext()
      : (specifier: string) => import(specifier);
    scope.require = createRequire(named);
    process.on("SIGINT", () => this.#letGo?.());
  }

  async run(code: string): Promise<Outcome> {
    const outcome = await this.#run(await prepareCell(code));
    if (outcome.kind !== "error" || !(outcome.error instanceof SyntaxError)) return outcome;
    const typescript = await typeScriptCell(code);
    return typescript === undefined ? outcome : this.#run(typescript);
  }

  async #run(source: string): Promise<Outcome> {
    this.#global ??= (
      await this.#post<EvaluateReply>("Runtime.evaluate", { expression: "globalThis" })
    ).result.objectId;
    let reply: EvaluateReply | "interrupted";
    try {
      reply = await this.#evaluate(source);
    } catch (error) {
      if (isTermination(error)) return { kind: "interrupted" };
      throw error;
    }
    if (reply === "interrupted") return { kind: "interrupted" };
    try {
      const thrown = reply.exceptionDetails;
      if (thrown)
        return {
          kind: "error",
          error: thrown.exception ? await this.#take(thrown.exception) : new Error(thrown.text),
        };
      return { kind: "value", value: await this.#take(reply.result) };
    } finally {
      this.#session.post("Runtime.releaseObjectGroup", { objectGroup: "cell" });
    }
  }

  #evaluate(expression: string): Promise<EvaluateReply | "interrupted"> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (value: EvaluateReply | "interrupted" | Error) => {
        if (settled) return;
        settled = true;
        this.#letGo = undefined;
        if (value instanceof Error) reject(value);
        else resolve(value);
      };
      this.#letGo = () => settle("interrupted");
      (globalThis as Record<string, unknown>)[ENTER] = () =>
        this.#session.post(
          "Runtime.evaluate",
          { expression, replMode: true, awaitPromise: true, objectGroup: "cell" },
          (error, result) => settle(error ?? (result as EvaluateReply)),
        );
      try {
        vm.runInThisContext(`globalThis.${ENTER}()`, { breakOnSigint: true });
      } catch (error) {
        settle(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** The value a remote object stands for, handed over through the global object. */
  async #take(remote: RemoteObject): Promise<unknown> {
    if (remote.type === "undefined") return undefined;
    if ("value" in remote && remote.objectId === undefined) return remote.value;
    const argument = remote.objectId
      ? { objectId: remote.objectId }
      : { unserializableValue: remote.unserializableValue };
    await this.#post("Runtime.callFunctionOn", {
      objectId: this.#global,
      functionDeclaration: `function (value) { globalThis.${TAKEN} = value; }`,
      arguments: [argument],
    });
    const scope = globalThis as Record<string, unknown>;
    const value = scope[TAKEN];
    delete scope[TAKEN];
    return value;
  }

  #post<T>(method: string, params: Record<string, unknown>): Promise<T> {
    return new Promise((resolve, reject) =>
      this.#session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
    );
  }
}

function isTermination(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Execution was terminated|interrupted by `SIGINT`/.test(message);
}
