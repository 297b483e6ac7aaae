/**
 * debugpy's adapter starts its launcher under the program's interpreter (the project's), sends the launcher's
 * stderr to /dev/null and waits 60 s for it to connect back, never looking at the process: an interpreter that dies
 * at once (an environment whose base Python was removed or upgraded) left launch waiting the whole minute and then
 * said only "no initialized event". The launcher runs under a shell script of the session's (debugpy's
 * `debugLauncherPython`: one program, no arguments) that writes the interpreter's stderr and, when it ends, its exit
 * code to two files beside it in the place's scratch folder; the session looks at them while it waits. The program
 * itself still runs under the interpreter (`python`).
 */
import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { visibleTail } from "../files/tail.js";
import type { Place } from "../proc/place.js";

/** A word for sh: single-quoted. */
const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** How often the files are looked at while the launch waits. */
const POLL_MS = 200;
/** What is read of the interpreter's stderr for the answer: its end. */
const ERR_BYTES = 2048;

export class InterpreterWatch {
  readonly #status: string;
  readonly #err: string;
  /** The script debugpy runs its launcher with, as the place sees it. */
  readonly launcher: string;
  readonly #script: string;

  constructor(place: Place, interpreter: string) {
    // The scratch folder is the place's and the host's both; on the host, the host's temporary folder.
    const base = path.join(place.scratch ?? tmpdir(), `runbound-interpreter-${randomUUID().slice(0, 12)}`);
    this.#status = `${base}.status`;
    this.#err = `${base}.err`;
    this.#script = `${base}.sh`;
    const at = (file: string) => quoted(place.toPlace(file));
    const script = `#!/bin/sh\n${quoted(interpreter)} "$@" 2>${at(this.#err)}\ncode=$?\necho "$code" > ${at(this.#status)}\nexit "$code"\n`;
    // A new name, never through what the run's processes may have put there.
    writeFileSync(this.#script, script, { mode: 0o755, flag: "wx" });
    this.launcher = place.toPlace(this.#script);
  }

  /** Rejects once the interpreter ended with a failure; never resolves. Stops looking when `signal` aborts. */
  async failed(interpreter: string, signal: AbortSignal): Promise<never> {
    while (!signal.aborted) {
      await delay(POLL_MS, undefined, { signal }).catch(() => undefined);
      const code = Number.parseInt(visibleTail(this.#status, 16, 1) ?? "", 10);
      if (Number.isNaN(code) || code === 0) continue;
      const wrote = visibleTail(this.#err, ERR_BYTES, 3)?.split("\n").join(" | ");
      throw new Error(
        `the program's interpreter (${interpreter}) exited with code ${code} before debugpy's launcher could connect${wrote ? `; it wrote: ${wrote}` : ""}. Check that its environment runs (its python may point at a Python that is gone)`,
      );
    }
    return new Promise<never>(() => {});
  }

  dispose(): void {
    for (const file of [this.#status, this.#err, this.#script]) rmSync(file, { force: true });
  }
}
