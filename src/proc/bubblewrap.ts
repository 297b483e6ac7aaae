/**
 * bubblewrap, the OS sandbox a confined place runs its processes in: whether it is here and works (user
 * namespaces allowed), and the arguments that say what a confined process may see.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { onPath, setupCommand } from "../setup/components.mjs";

export type BubblewrapProbe =
  | {
      readonly ok: true;
      readonly path: string;
      readonly version: string;
      /** Whether this bubblewrap has 0.12.0's fix for CVE-2026-87766 (a parent symlink steering a mount point). */
      readonly linkFix: boolean;
    }
  | { readonly ok: false; readonly why: string; readonly fix: string };

const probed = new Map<string, BubblewrapProbe>();

/** Looks once per PATH: bwrap on it, and a trial sandbox that starts. */
export function probeBubblewrap(): BubblewrapProbe {
  const key = process.env.PATH ?? "";
  const found = probed.get(key) ?? probe();
  probed.set(key, found);
  return found;
}

/** The release that fixed CVE-2026-87766: creating a mount point followed a parent symlink onto the host. */
const LINK_FIX = [0, 12, 0];

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
  const unshare = onPath("unshare");
  if (!unshare || !onPath("nsenter"))
    return {
      ok: false,
      why: "unshare and nsenter (util-linux), which give a run its network namespace, are not on PATH",
      fix: "install util-linux",
    };
  const version = spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout: 5000 }).stdout.trim();
  // As a sandbox starts: in a network namespace of the run's (a user namespace's too, when not root).
  const root = process.getuid?.() === 0;
  const trial = spawnSync(
    unshare,
    [
      ...(root ? [] : ["--user", "--map-root-user"]),
      "--net",
      "--",
      bwrap,
      ...baseArgs(),
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--",
      "/bin/true",
    ],
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
  const bare = version.replace(/^bubblewrap\s*/, "");
  return { ok: true, path: bwrap, version: bare, linkFix: atLeast(bare, LINK_FIX) };
}

function atLeast(version: string, wanted: readonly number[]): boolean {
  const parts = version.split(/[.-]/).map((p) => Number.parseInt(p, 10));
  for (const [i, want] of wanted.entries()) {
    const have = Number.isFinite(parts[i]) ? parts[i]! : 0;
    if (have !== want) return have > want;
  }
  return true;
}

/** What a place's line and doctor say of the bubblewrap in use and the mount-point fix. */
export function bubblewrapLine(probe: { readonly version: string; readonly linkFix: boolean }): string {
  return probe.linkFix
    ? `bubblewrap ${probe.version}`
    : `bubblewrap ${probe.version}, without 0.12.0's fix for CVE-2026-87766 — runbound mounts no path of the workdir that is or passes through a link`;
}

/** The id a confined process has when the harness runs as root: root inside a sandbox still owns root's files. */
export const CONFINED_ID = 1000;

/**
 * Namespaces and privileges: its own user, PID, IPC, UTS and cgroup namespaces, no capabilities, its own session;
 * the network namespace is the run's, joined before (`run-network.ts`). The user namespace it joins with that maps
 * the harness's user to 0, so the id inside is given: the harness's own, or as root uid 1000 (root's files it can
 * still reach by owner — those of /etc that others may not read — are masked: `systemMasks`).
 */
export function baseArgs(): string[] {
  const root = process.getuid?.() === 0;
  const uid = root ? CONFINED_ID : (process.getuid?.() ?? CONFINED_ID);
  const gid = root ? CONFINED_ID : (process.getgid?.() ?? CONFINED_ID);
  return [
    "--die-with-parent",
    "--new-session",
    "--unshare-user",
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--uid",
    String(uid),
    "--gid",
    String(gid),
    "--cap-drop",
    "ALL",
  ];
}

export interface Mounts {
  /** Folders given an empty, private tmpfs (the user's home, /tmp, /var/tmp, /run). */
  readonly tmpfs: readonly string[];
  /** Host folders shown read-only (toolchains, runbound's home and package, folders the harness declared). */
  readonly readable: readonly string[];
  /** Folders writable (the workdir, the run's scratch folder). */
  readonly writable: readonly string[];
  /** Read-only although under a writable one (every .git, node_modules and environment of the workdir). */
  readonly frozen: readonly string[];
  /** Folders the harness made writable, whatever the rules above say. */
  readonly granted: readonly string[];
  /** Read-only whatever comes before (runbound's home and its Python environment). */
  readonly sealed: readonly string[];
}

/** The system a confined process sees, read-only: its programs, libraries and configuration, nothing else of `/`. */
const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];
/** What of /sys programs read to size themselves (CPU and NUMA counts), and nothing else of it. */
const SYSTEM_INFO = ["/sys/devices/system/cpu", "/sys/devices/system/node"];

/**
 * The filesystem a confined process sees: the system read-only, private empty folders, then the readable,
 * writable, frozen, granted and sealed folders in that order (a later mount covers an earlier one). Nothing else
 * of the host — no other workdir, no /srv, /opt, /home, /mnt, /var.
 */
export function mountArgs(mounts: Mounts): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM) {
    const info = lstatOrUndefined(dir);
    if (info?.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (info?.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  args.push("--dev", "/dev", "--proc", "/proc");
  for (const dir of SYSTEM_INFO) args.push("--ro-bind-try", dir, dir);
  for (const dir of mounts.tmpfs) args.push("--tmpfs", dir);
  // resolv.conf is often a link into /run, which is a private tmpfs here.
  const resolver = resolvedOutsideSystem("/etc/resolv.conf");
  if (resolver) args.push("--ro-bind", resolver, resolver);
  for (const dir of mounts.readable) args.push("--ro-bind-try", dir, dir);
  for (const dir of mounts.writable) args.push("--bind", dir, dir);
  for (const dir of mounts.frozen) args.push("--ro-bind-try", dir, dir);
  for (const dir of mounts.granted) args.push("--bind-try", dir, dir);
  for (const dir of mounts.sealed) args.push("--ro-bind-try", dir, dir);
  for (const masked of systemMasks()) {
    if (masked.folder) args.push("--tmpfs", masked.path, "--remount-ro", masked.path);
    else args.push("--ro-bind", "/dev/null", masked.path);
  }
  return args;
}

function lstatOrUndefined(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** Where a system file's link leads when that is outside the system folders shown (resolv.conf into /run). */
function resolvedOutsideSystem(file: string): string | undefined {
  if (!lstatOrUndefined(file)?.isSymbolicLink()) return undefined;
  try {
    const target = realpathSync(file);
    return SYSTEM.some((dir) => within(target, dir)) ? undefined : target;
  } catch {
    return undefined;
  }
}

let masks: readonly { path: string; folder: boolean }[] | undefined;

/**
 * What of /etc a stranger to the host could not read — /etc/shadow, gshadow, ssh's host keys, ssl/private,
 * sudoers — masked: as root a confined process is root's files' owner whatever its id inside, and owner's bits let
 * it read them. Found once per process by the files' modes (other-readable or not), links not followed.
 */
export function systemMasks(): readonly { path: string; folder: boolean }[] {
  if (masks) return masks;
  const found: { path: string; folder: boolean }[] = [];
  const visit = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      const info = lstatOrUndefined(file);
      if (!info || info.isSymbolicLink()) continue;
      if (info.isDirectory()) {
        if ((info.mode & 0o005) !== 0o005) found.push({ path: file, folder: true });
        else if (depth > 0) visit(file, depth - 1);
      } else if (info.isFile() && (info.mode & 0o004) === 0) found.push({ path: file, folder: false });
    }
  };
  if (existsSync("/etc")) visit("/etc", 6);
  masks = found;
  return masks;
}

export function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
