/** What runbound's catalog sends runbound's Node adapter (adapter.ts): to launch a program, or to join one. */
import type { DebugProtocol } from "@vscode/debugprotocol";

/** What runbound's catalog sends to launch a program. */
export interface NodeLaunchArguments extends DebugProtocol.LaunchRequestArguments {
  readonly program: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** Node's own arguments before the program: `--import <tsx's loader>` for TypeScript. */
  readonly nodeArgs?: readonly string[];
  readonly stopOnEntry?: boolean;
  /** Why the program cannot be launched (TypeScript on a Node without type stripping and no tsx). */
  readonly refused?: string;
}

/** What runbound's catalog sends to join a program whose inspector is open (`node --inspect`, or SIGUSR1). */
export interface NodeAttachArguments extends DebugProtocol.AttachRequestArguments {
  readonly host: string;
  readonly port: number;
  /** runbound opened the inspector (SIGUSR1 to a pid): it is closed again on leaving, so nothing else joins it. */
  readonly closeInspector?: boolean;
}
