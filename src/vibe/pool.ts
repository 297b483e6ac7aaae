/**
 * The background workers of a run (vibe mode): each an agent with its own brief and a tier, run by the backend the
 * harness mapped to that tier. Ids are w1, w2, …; a concurrency limit applies; every wait has a hard deadline; a
 * worker is stopped with its whole process tree; workers end with the run.
 */

import { ToolError } from "../errors.js";
import { quotedValue } from "../files/visible.js";
import { takeSlot } from "../host-limits.js";
import type { ProcessTracker } from "../proc/tracker.js";
import type { RunLink } from "../run-link.js";
import { SURFACES, type Surface } from "../surfaces.js";

import type { WorkerStatus, WorkerTier, WorkerView } from "./schema.js";

export type { WorkerStatus, WorkerTier, WorkerView };

export interface AttemptContext {
  readonly id: string;
  /** The surface of the call that spawned the worker: what the worker may do, at most. */
  readonly surface: Surface;
  readonly workdir: string;
  readonly processes: ProcessTracker;
  /** Call on every sign of life (output), for `last activity`. */
  readonly onActivity: () => void;
  /** A client linked to the same run on the surface of the call that spawned the worker (never more). */
  readonly link: () => Promise<RunLink>;
}

export interface Attempt {
  /** Settles when the attempt ends by itself: ok with its result, or not with why. */
  readonly finished: Promise<{ ok: boolean; result: string }>;
  /** Stops it (its whole process tree) and resolves when it is gone. */
  stop(): Promise<void>;
}

export interface WorkerBackend {
  readonly name: string;
  /**
   * The surfaces this backend keeps to (its workers do no more than the spawning surface allows). Absent: full
   * only — a backend that runs a program runbound cannot see into is not offered on plan or readonly unless the
   * harness declares that the program honours them (commandBackend's `surfaces`).
   */
  readonly surfaces?: readonly Surface[];
  start(brief: string, context: AttemptContext): Attempt;
}

export interface VibeOptions {
  readonly fast: WorkerBackend;
  /** Defaults to the fast backend. */
  readonly good?: WorkerBackend;
  /** Workers running at once. Default 4. */
  readonly maxWorkers?: number;
}

interface Worker {
  readonly id: string;
  readonly label: string;
  readonly tier: WorkerTier;
  /** The surface of the call that spawned it: the most its tools may see. */
  readonly surface: Surface;
  brief: string;
  status: WorkerStatus;
  readonly startedAt: number;
  lastActivity: number;
  attempts: number;
  result: string | undefined;
  attempt: Attempt | undefined;
  settled: Promise<void>;
}

export class VibePool {
  readonly #workdir: string;
  readonly #processes: ProcessTracker;
  readonly #options: VibeOptions;
  readonly #link: (surface: Surface) => Promise<RunLink>;
  readonly #workers = new Map<string, Worker>();
  #next = 1;

  constructor(
    workdir: string,
    processes: ProcessTracker,
    options: VibeOptions,
    link: (surface: Surface) => Promise<RunLink>,
  ) {
    this.#workdir = workdir;
    this.#processes = processes;
    this.#options = options;
    this.#link = link;
  }

  get maxWorkers(): number {
    return this.#options.maxWorkers ?? 4;
  }

  spawn(brief: string, label: string, tier: WorkerTier, surface: Surface): WorkerView {
    const backend = this.#backend(tier);
    if (!(backend.surfaces ?? ["full"]).includes(surface)) {
      throw new ToolError(
        `vibe_spawn is refused on the ${surface} surface: the ${tier} workers' backend (${backend.name}) runs a program runbound cannot keep to ${surface}, and the harness did not declare that it honours ${surface}. Do the work with this surface's own tools, or ask for it to be done on a full surface.`,
      );
    }
    const running = [...this.#workers.values()].filter((w) => w.status === "running");
    if (running.length >= this.maxWorkers) {
      throw new ToolError(
        `${running.length} workers are running, the limit of this run (${running.map((w) => `${w.id} "${w.label}"`).join(", ")}). Wait for one (vibe_wait) or stop one (vibe_kill), then spawn.`,
      );
    }
    let spawned: Worker | undefined;
    const slot = takeSlot(
      "workers",
      this.#workdir,
      `w${this.#next} "${label}"`,
      () => spawned?.status === "running",
    );
    const worker: Worker = {
      id: `w${this.#next++}`,
      label,
      tier,
      surface,
      brief,
      status: "running",
      startedAt: Date.now(),
      lastActivity: Date.now(),
      attempts: 0,
      result: undefined,
      attempt: undefined,
      settled: Promise.resolve(),
    };
    spawned = worker;
    this.#workers.set(worker.id, worker);
    this.#start(worker);
    if (worker.status === "failed") {
      slot.release();
      // A worker that never started is not listed.
      this.#workers.delete(worker.id);
      this.#next--;
      throw new ToolError(`${worker.result}. Nothing is running.`);
    }
    return this.#view(worker);
  }

  /** Appends to the brief and restarts the worker; says what was interrupted. */
  async send(
    id: string,
    message: string,
    surface: Surface,
  ): Promise<{ view: WorkerView; interrupted: string }> {
    const worker = this.#get(id, surface);
    const interrupted =
      worker.status === "running"
        ? `attempt ${worker.attempts}, running for ${Math.round((Date.now() - worker.startedAt) / 1000)} s, was stopped`
        : `nothing was running (it had ${worker.status})`;
    if (worker.status === "running") {
      worker.status = "killed";
      await worker.attempt?.stop();
      await worker.settled;
    }
    worker.brief = `${worker.brief}\n\n${message}`;
    worker.status = "running";
    worker.result = undefined;
    this.#start(worker);
    return { view: this.#view(worker), interrupted };
  }

  /** Waits until the worker finishes or the deadline passes — whichever first, always. */
  async wait(
    id: string,
    timeoutMs: number,
    signal: AbortSignal,
    surface: Surface,
  ): Promise<{ view: WorkerView; timedOut: boolean }> {
    const worker = this.#get(id, surface);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"deadline">((resolve) => {
      timer = setTimeout(() => resolve("deadline"), timeoutMs);
    });
    const aborted = new Promise<"deadline">((resolve) =>
      signal.addEventListener("abort", () => resolve("deadline"), { once: true }),
    );
    // A send may restart the worker while we wait: wait for whichever attempt is current when it settles.
    const finished = (async () => {
      for (;;) {
        const settled = worker.settled;
        await settled;
        if (worker.settled === settled && worker.status !== "running") return "finished" as const;
      }
    })();
    const outcome = await Promise.race([finished, deadline, aborted]);
    clearTimeout(timer);
    return { view: this.#view(worker), timedOut: outcome === "deadline" };
  }

  async kill(id: string, surface: Surface): Promise<WorkerView> {
    const worker = this.#get(id, surface);
    if (worker.status === "running") {
      worker.status = "killed";
      await worker.attempt?.stop();
      await worker.settled;
    }
    return this.#view(worker);
  }

  /** The workers a surface may see: its own and those of lower surfaces. */
  list(surface: Surface): WorkerView[] {
    return [...this.#workers.values()].filter((w) => reaches(surface, w.surface)).map((w) => this.#view(w));
  }

  async dispose(): Promise<void> {
    await Promise.all(
      [...this.#workers.values()].filter((w) => w.status === "running").map((w) => this.kill(w.id, "full")),
    );
  }

  #backend(tier: WorkerTier): WorkerBackend {
    return tier === "good" ? (this.#options.good ?? this.#options.fast) : this.#options.fast;
  }

  #start(worker: Worker): void {
    const backend = this.#backend(worker.tier);
    worker.attempts++;
    let attempt: Attempt;
    try {
      attempt = backend.start(worker.brief, {
        id: worker.id,
        surface: worker.surface,
        workdir: this.#workdir,
        processes: this.#processes,
        onActivity: () => {
          worker.lastActivity = Date.now();
        },
        link: () => this.#link(worker.surface),
      });
    } catch (error) {
      // Settled now, as failed: a wait on a worker that never started must not wait on it.
      worker.attempt = undefined;
      worker.status = "failed";
      worker.result = `the ${backend.name} backend did not start: ${(error as Error).message}`;
      worker.settled = Promise.resolve();
      return;
    }
    worker.attempt = attempt;
    worker.settled = attempt.finished.then(
      ({ ok, result }) => {
        if (worker.attempt !== attempt || worker.status === "killed") return;
        worker.status = ok ? "done" : "failed";
        worker.result = result;
        worker.lastActivity = Date.now();
      },
      (error: Error) => {
        if (worker.attempt !== attempt || worker.status === "killed") return;
        worker.status = "failed";
        worker.result = `the ${backend.name} backend failed: ${error.message}`;
      },
    );
  }

  /** A worker the surface may reach: one of its own or of a lower surface (a plan call never steers a full worker). */
  #get(id: string, surface: Surface): Worker {
    const worker = this.#workers.get(id);
    if (!worker || !reaches(surface, worker.surface)) {
      const ids = [...this.#workers.values()].filter((w) => reaches(surface, w.surface)).map((w) => w.id);
      const where = worker
        ? ` on this surface (${id} belongs to the ${worker.surface} surface, which the ${surface} surface cannot reach)`
        : "";
      throw new ToolError(
        `There is no worker ${quotedValue(id)}${where}. Workers this surface sees: ${ids.length ? ids.join(", ") : "none (vibe_spawn starts one)"}.`,
      );
    }
    return worker;
  }

  #view(worker: Worker): WorkerView {
    const now = Date.now();
    return {
      id: worker.id,
      label: worker.label,
      tier: worker.tier,
      status: worker.status,
      elapsed_seconds: Math.round((now - worker.startedAt) / 1000),
      last_activity_seconds_ago: Math.round((now - worker.lastActivity) / 1000),
      attempts: worker.attempts,
      ...(worker.result !== undefined ? { result: worker.result } : {}),
    };
  }
}

/** full reaches every worker, plan reaches plan's and readonly's, readonly only its own. */
function reaches(caller: Surface, owner: Surface): boolean {
  return SURFACES.indexOf(caller) <= SURFACES.indexOf(owner);
}
