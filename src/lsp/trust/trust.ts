/**
 * Workspace trust for read-tier calls (VS Code's Workspace Trust is the anchor): untrusted, the language servers run
 * none of the project's code; trusted, they do (its node_modules/.bin and .venv servers, rust-analyzer's build
 * scripts and proc macros, cargo check). "ask" puts the question to the run's approver or a person once, at the
 * first call that would run the project's code, and keeps the answer for the run.
 */
import type { Caller, Surface } from "../../surfaces.js";

/** `"workspace"`: trusted; `"ask"`: asked once per run; absent: untrusted. */
export type TrustSetting = "workspace" | "ask" | undefined;

/** The call that raised the question: the approval card says who asked, on which surface. */
export interface TrustAsked {
  readonly surface: Surface;
  readonly caller: Caller;
  readonly signal: AbortSignal;
}

/** Asks whether the workspace's code may run: `what` names it ("its own node_modules/.bin/pyright-langserver"). */
export type TrustAsker = (what: string, asked: TrustAsked) => Promise<boolean>;

export class WorkspaceTrust {
  #state: "trusted" | "untrusted" | "ask";
  readonly #asker: TrustAsker | undefined;
  #asking: Promise<boolean> | undefined;
  /** How the untrusted state came about, for status. */
  #denied = false;

  constructor(setting: TrustSetting, asker?: TrustAsker) {
    this.#state = setting === "workspace" ? "trusted" : setting === "ask" && asker ? "ask" : "untrusted";
    this.#asker = asker;
  }

  get trusted(): boolean {
    return this.#state === "trusted";
  }

  /** Not yet asked: the first call that would run the project's code asks. */
  get undecided(): boolean {
    return this.#state === "ask";
  }

  /** How to trust it, for answers that say what an untrusted workspace leaves out. */
  get how(): string {
    if (this.#state === "ask") return "the first call that needs it asks to trust it";
    if (this.#denied)
      return 'trust was asked and denied for this run; createRun({ trust: "workspace" }) trusts it';
    return 'createRun({ trust: "workspace" }) trusts it';
  }

  /**
   * Asks once, when undecided and something would run (`what`); concurrent calls share the question. Resolves to
   * whether this call changed the workspace to trusted (its servers must then start again).
   */
  async settle(what: string | undefined, asked: TrustAsked): Promise<boolean> {
    if (this.#state !== "ask" || what === undefined || !this.#asker) return false;
    const first = this.#asking === undefined;
    this.#asking ??= this.#asker(what, asked);
    let allowed: boolean;
    try {
      allowed = await this.#asking;
    } catch {
      // Cancelled or failed: not an answer. This call goes on untrusted; the next one asks again.
      if (first) this.#asking = undefined;
      return false;
    }
    if (!first) return false;
    this.#state = allowed ? "trusted" : "untrusted";
    this.#denied = !allowed;
    return allowed;
  }
}
