/**
 * A cell's outputs as Jupyter stores them, from the kernel's IOPub messages: what nbclient keeps (its
 * output_from_msg, clear_output with and without wait, update_display_data by display id), with consecutive
 * stream messages of one name joined into one output as JupyterLab stores them (the kernel's flush boundaries
 * vary from run to run; the text does not).
 */
import type { KernelMessage } from "@jupyterlab/services";
import type { NotebookOutput } from "./document.js";

/** Outputs of every cell of one notebook_run, keyed by display id: an update reaches any cell that showed it. */
export class DisplayIds {
  readonly #places = new Map<string, NotebookOutput[]>();

  add(id: string, output: NotebookOutput): void {
    const list = this.#places.get(id) ?? [];
    list.push(output);
    this.#places.set(id, list);
  }

  update(id: string, data: Record<string, unknown>, metadata: Record<string, unknown>): void {
    for (const output of this.#places.get(id) ?? []) {
      output.data = data;
      output.metadata = metadata;
    }
  }

  forget(outputs: readonly NotebookOutput[]): void {
    for (const [id, list] of this.#places)
      this.#places.set(
        id,
        list.filter((o) => !outputs.includes(o)),
      );
  }
}

export class OutputRecorder {
  readonly outputs: NotebookOutput[] = [];
  executionCount: number | null = null;
  #clearBeforeNext = false;

  constructor(private readonly displays: DisplayIds) {}

  take(msg: KernelMessage.IIOPubMessage): void {
    const type = msg.header.msg_type;
    const content = msg.content as Record<string, unknown>;
    if (typeof content.execution_count === "number") this.executionCount = content.execution_count;
    const transient = content.transient as { display_id?: unknown } | undefined | null;
    const displayId = typeof transient?.display_id === "string" ? transient.display_id : undefined;
    if (type === "update_display_data") {
      if (displayId) this.displays.update(displayId, bundle(content.data), bundle(content.metadata));
      return;
    }
    if (type === "clear_output") {
      if (content.wait) this.#clearBeforeNext = true;
      else this.#clear();
      return;
    }
    const output = outputOf(type, content);
    if (!output) return;
    if (this.#clearBeforeNext) {
      this.#clear();
      this.#clearBeforeNext = false;
    }
    if (displayId && (type === "display_data" || type === "execute_result")) {
      // An earlier display of the same id is updated too, as nbclient does.
      this.displays.update(displayId, bundle(content.data), bundle(content.metadata));
      this.displays.add(displayId, output);
    }
    const last = this.outputs.at(-1);
    if (output.output_type === "stream" && last?.output_type === "stream" && last.name === output.name) {
      last.text = `${last.text as string}${output.text as string}`;
      return;
    }
    this.outputs.push(output);
  }

  #clear(): void {
    this.displays.forget(this.outputs);
    this.outputs.length = 0;
  }
}

function bundle(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? { ...(value as Record<string, unknown>) }
    : {};
}

/** nbformat's output_from_msg: the message's content as a stored output (fields of the protocol only). */
function outputOf(type: string, content: Record<string, unknown>): NotebookOutput | undefined {
  switch (type) {
    case "stream":
      return { output_type: "stream", name: String(content.name), text: String(content.text ?? "") };
    case "display_data":
      return { output_type: "display_data", data: bundle(content.data), metadata: bundle(content.metadata) };
    case "execute_result":
      return {
        output_type: "execute_result",
        execution_count: typeof content.execution_count === "number" ? content.execution_count : null,
        data: bundle(content.data),
        metadata: bundle(content.metadata),
      };
    case "error":
      return {
        output_type: "error",
        ename: String(content.ename ?? ""),
        evalue: String(content.evalue ?? ""),
        traceback: Array.isArray(content.traceback) ? content.traceback.map(String) : [],
      };
    default:
      return undefined;
  }
}
