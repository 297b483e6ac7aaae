/**
 * The podman container the container-place tests run in: the host's root filesystem as an overlay (`--rootfs /:O`,
 * no image registry needed), the workdir at /workspace, runbound's home at /opt/runbound and the scratch folder at
 * /scratch, with /tmp and runbound's home hidden at the host's paths, so an untranslated path fails.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { HOME } from "./helpers.js";

/** The checkout: mounted read-only where it is, for runbound's own npm servers (tsgo, pyright) inside. */
export const ROOT = path.resolve(import.meta.dirname, "..");
export const CONTAINERS_CONF = path.join(ROOT, ".tools/podman/containers.conf");

/** Podman's conmon (2.1 here) creates an empty file named `oom` in its working folder when a container meets its memory limit: not in the checkout. */
const PODMAN_CWD = mkdtempSync(path.join(tmpdir(), "runbound-podman-"));

export const podman = (args: string[]) =>
  spawnSync("podman", args, {
    cwd: PODMAN_CWD,
    encoding: "utf8",
    env: { ...process.env, CONTAINERS_CONF },
    timeout: 60_000,
  });

export const podmanAvailable = podman(["--version"]).status === 0;
if (process.env.CI && !podmanAvailable)
  throw new Error("the container test needs podman (node scripts/setup.mjs installs it)");

/** Starts the container `name` (removing one left over); `extra`: podman run's options; `home`: its mount mode. */
export function startBox(
  name: string,
  workdir: string,
  scratch: string,
  extra: readonly string[],
  home = "rw",
) {
  podman(["rm", "-f", name]);
  return podman([
    ...["run", "-d", "--name", name, ...extra],
    ...[
      "-v",
      `${workdir}:/workspace`,
      "-v",
      `${HOME.home}:/opt/runbound:${home}`,
      "-v",
      `${scratch}:/scratch`,
    ],
    ...["--mount", "type=tmpfs,destination=/tmp,notmpcopyup"],
    ...["--mount", `type=tmpfs,destination=${HOME.home},notmpcopyup`],
    ...["--rootfs", "/:O", "sleep", "3600"],
  ]);
}
