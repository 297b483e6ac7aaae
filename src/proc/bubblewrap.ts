/**
 * bubblewrap, the OS sandbox a confined place runs its processes in: whether it is here and works (user
 * namespaces allowed), and the arguments that say what a confined process may see.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { onPath, setupCommand } from "../setup/components.mjs";

export type BubblewrapProbe =
  | { readonly ok: true; readonly path: string; readonly version: string }
  | { readonly ok: false; readonly why: string; readonly fix: string };

const probed = new Map<string, BubblewrapProbe>();

/** Looks once per PATH: bwrap on it, and a trial sandbox that starts. */
export function probeBubblewrap(): BubblewrapProbe {
  const key = process.env.PATH ?? "";
  const found = probed.get(key) ?? probe();
  probed.set(key, found);
  return found;
}

function probe(): BubblewrapProbe {
  if (process.platform !== "linux")
    return {
      ok: false,
      why: `bubblewrap is Linux-only (this is ${process.platform})`,
      fix: 'set confine: "off"',
    };
  const bwrap = onPath("bwrap");
  if (!bwrap)
    return {
      ok: false,
      why: "bubblewrap (bwrap) is not installed",
      fix: `\`${setupCommand("bubblewrap")}\` installs Debian's bubblewrap when run as root; else \`sudo apt-get install bubblewrap\``,
    };
  const version = spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout: 5000 }).stdout.trim();
  const trial = spawnSync(
    bwrap,
    [...baseArgs("off"), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/true"],
    { encoding: "utf8", timeout: 10_000 },
  );
  if (trial.status !== 0) {
    const said = `${trial.stderr ?? ""}`.trim().split("\n").pop() ?? `exit ${trial.status}`;
    return {
      ok: false,
      why: `bubblewrap is installed but cannot make a sandbox here (${said})`,
      fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or run in a container that permits them",
    };
  }
  return { ok: true, path: bwrap, version: version.replace(/^bubblewrap\s*/, "") };
}

/** Namespaces and privileges: everything unshared but (when on) the network; no capabilities; its own session. */
export function baseArgs(network: "on" | "off"): string[] {
  return [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    ...(network === "on" ? ["--share-net"] : []),
    "--cap-drop",
    "ALL",
  ];
}

export interface Mounts {
  /** Folders hidden behind an empty, private tmpfs (the user's home, /tmp, /run). */
  readonly hidden: readonly string[];
  /** Folders shown read-only although under a hidden one (toolchains, runbound's home). */
  readonly readable: readonly string[];
  /** Folders writable (the workdir, the run's scratch folder). */
  readonly writable: readonly string[];
  /** Folders read-only although under a writable one (the project's .git and environments). */
  readonly frozen: readonly string[];
  /** Folders the harness made writable, whatever the rules above say. */
  readonly granted: readonly string[];
}

/** The filesystem a confined process sees: the system read-only, then the hidden, readable and writable folders. */
export function mountArgs(mounts: Mounts): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const dir of mounts.hidden) if (existsSync(dir)) args.push("--tmpfs", dir);
  // Files a hidden folder would take away that every process needs (resolv.conf is often a link into /run).
  for (const file of ["/etc/resolv.conf"]) {
    const target = linkTarget(file);
    if (target && mounts.hidden.some((dir) => within(target, dir))) args.push("--ro-bind", target, target);
  }
  for (const dir of mounts.readable) args.push("--ro-bind-try", dir, dir);
  for (const dir of mounts.writable) args.push("--bind", dir, dir);
  for (const dir of mounts.frozen) {
    // A link (`.venv` → an environment elsewhere) cannot be frozen as itself: bubblewrap would mount onto where it
    // points and fail when that is outside. What it points to is frozen if it is writable here, else already is.
    const target = linkTarget(dir);
    if (!target) args.push("--ro-bind-try", dir, dir);
    else if (mounts.writable.some((w) => within(target, w))) args.push("--ro-bind", target, target);
  }
  for (const dir of mounts.granted) args.push("--bind-try", dir, dir);
  return args;
}

function linkTarget(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? realpathSync(file) : undefined;
  } catch {
    return undefined;
  }
}

export function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
