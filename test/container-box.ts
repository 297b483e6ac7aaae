/**
 * The podman container the container-place tests run in: the host's root filesystem as an overlay (`--rootfs /:O`,
 * no image registry needed), the workdir at /workspace, runbound's home at /opt/runbound and the scratch folder at
 * /scratch, with /tmp and runbound's home hidden at the host's paths, so an untranslated path fails.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { HOME } from "./helpers.js";

/** The checkout: mounted read-only where it is, for runbound's own npm servers (tsgo, pyright) inside. */
export const ROOT = path.resolve(import.meta.dirname, "..");
export const CONTAINERS_CONF = path.join(ROOT, ".tools/podman/containers.conf");

export const podman = (args: string[]) =>
  spawnSync("podman", args, {
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
