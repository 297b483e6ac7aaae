/**
 * The approval gate for write and exec tools on a full surface. The harness may pass an approver, or "always" for
 * trusted automation; without one, a connected question port shows a permission card; with neither, every gated
 * call is refused (fail closed) — a call nobody could approve is never run.
 */

import { visibleLine } from "./files/visible.js";
import type { QuestionDesk } from "./questions/desk.js";
import type { Caller, Surface, Tier } from "./surfaces.js";

export interface ApprovalRequest {
  readonly tool: string;
  readonly title: string;
  readonly tier: Tier;
  readonly surface: Surface;
  readonly caller: Caller;
  /**
   * One line: what the call would do ("write src/app.ts (12 lines)"; eval: the language and the code, clipped with
   * a count). Characters that could hide or rewrite text (controls, bidi, zero-width) are shown as `\u{…}`.
   */
  readonly summary: string;
  /** The call's arguments as the tool will run them (checked against its schema). */
  readonly arguments: Readonly<Record<string, unknown>>;
}

export type ApprovalDecision =
  | {
      readonly allow: true /** "run": do not ask again for this tool in this run. */;
      readonly scope?: "once" | "run";
    }
  | {
      readonly allow: false /** Why not, completing "Not done: <tool> needs approval and …". */;
      readonly reason: string;
    };

export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** What createRun accepts: a function, or "always" to approve every call without asking. */
export type ApproverOption = Approver | "always";

const ALLOW_ONCE = 1;
const ALLOW_RUN = 2;

/** An approver that asks the person through the question port, on a card of kind "permission". */
export function cardApprover(desk: QuestionDesk): Approver {
  return async (request, signal) => {
    const outcome = await desk.ask(
      {
        kind: "permission",
        question: `Allow ${request.tool} to ${request.summary}?`,
        context: `${request.title} is ${request.tier === "exec" ? "an" : "a"} ${request.tier}-tier tool, called by the ${request.caller} on the ${request.surface} surface.`,
        options: [
          { label: "Allow once" },
          { label: `Allow ${request.tool} for the rest of this run` },
          { label: "Deny" },
        ],
        allowFreeText: true,
        multiSelect: false,
      },
      signal,
    );
    switch (outcome.kind) {
      case "answer": {
        const choice = outcome.choices[0];
        if (choice === ALLOW_ONCE) return { allow: true, scope: "once" };
        if (choice === ALLOW_RUN) return { allow: true, scope: "run" };
        if (outcome.text) return { allow: false, reason: `the person denied it, saying: "${outcome.text}"` };
        return { allow: false, reason: "the person denied it" };
      }
      case "skip":
        return { allow: false, reason: "the person skipped the permission card (a skip is not consent)" };
      case "timeout":
        return { allow: false, reason: `nobody answered the permission card within ${desk.timeoutText}` };
      case "unavailable":
        return { allow: false, reason: `no person is connected to approve it (${outcome.reason})` };
      case "cancelled":
        throw signal.reason ?? new Error("cancelled");
    }
  };
}

export type ApprovalMode = "always" | "approver" | "question card" | "none (fail closed)";

export class ApprovalGate {
  readonly #approver: Approver | undefined;
  readonly #allowedForRun = new Set<string>();
  /** How approvals are decided in this run, for status and the tour. */
  readonly mode: ApprovalMode;

  constructor(option: ApproverOption | undefined, desk: QuestionDesk | undefined) {
    if (option === "always") {
      this.mode = "always";
      this.#approver = async () => ({ allow: true });
    } else if (option) {
      this.mode = "approver";
      this.#approver = option;
    } else if (desk) {
      this.mode = "question card";
      this.#approver = cardApprover(desk);
    } else {
      this.mode = "none (fail closed)";
    }
  }

  async check(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    if (this.#allowedForRun.has(request.tool)) return { allow: true };
    if (!this.#approver) {
      return {
        allow: false,
        reason:
          "this run has no approver and no question port, so nobody can approve it " +
          '(the harness must pass `approver` or `questions` to createRun, or approver: "always" for trusted automation)',
      };
    }
    const decision: unknown = await this.#approver(request, signal);
    return this.#decided(request.tool, decision);
  }

  /** Only `allow: true` allows (`"no"`, `1` or a missing field deny); a denial always reads as a reason. */
  #decided(tool: string, decision: unknown): ApprovalDecision {
    const fields = (typeof decision === "object" && decision !== null ? decision : {}) as {
      allow?: unknown;
      scope?: unknown;
      reason?: unknown;
    };
    if (fields.allow === true) {
      if (fields.scope === "run") this.#allowedForRun.add(tool);
      return fields.scope === "run" ? { allow: true, scope: "run" } : { allow: true };
    }
    const reason = typeof fields.reason === "string" ? fields.reason.trim() : "";
    if (fields.allow !== false)
      return {
        allow: false,
        reason: `the approver's answer was not an approval (only \`allow: true\` approves; it gave ${JSON.stringify(decision)?.slice(0, 120) ?? String(decision)})`,
      };
    return {
      allow: false,
      reason: reason ? visibleLine(reason) : "the approver denied it without giving a reason",
    };
  }
}
