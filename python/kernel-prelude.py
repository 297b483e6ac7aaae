# The prelude of every Python kernel runbound starts: a failed !cmd raises, a pip command evicts what it changed, and
# tool() calls this run's tools over the kernel's stdin channel. runbound puts its bridge prefix where it says so.
def _runbound_setup():
    import importlib, os, shlex, sys
    import importlib.metadata as metadata
    ip = get_ipython()
    # The kernel's environment first on the PATH of !cmd, %%bash and subprocess, so !pip, !python and !jupyter are
    # the kernel's (the machine's came first: pyenv's pip installed for another Python, then failed to rehash).
    here = os.path.dirname(sys.executable)
    rest = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != here]
    os.environ["PATH"] = os.pathsep.join([here, *rest])
    def versions():
        # The first of a name on the path is the one an import loads (a run's own install shadows the environment's).
        found = {}
        for d in metadata.distributions():
            found.setdefault((d.metadata["Name"] or "").lower(), d.version)
        return found
    def modules_of(name):
        try:
            dist = metadata.distribution(name)
        except Exception:
            return {name.replace("-", "_")}
        found = set((dist.read_text("top_level.txt") or "").split())
        for f in dist.files or []:
            top = str(f).split("/")[0]
            if top.endswith(".py"):
                top = top[:-3]
            if top and not top.endswith((".dist-info", ".egg-info", ".pth")) and top != "..":
                found.add(top)
        return found or {name.replace("-", "_")}
    def is_pip(cmd):
        # %pip runs `python -m pip ...` through this shell too; !pip, !python -m pip and !uv pip are the same act.
        try:
            words = shlex.split(cmd)
        except ValueError:
            return False
        first = os.path.basename(words[0]) if words else ""
        if first.startswith("pip"):
            return first.rstrip("0123456789.") == "pip"
        if first.startswith("python"):
            return first.rstrip("0123456789.") == "python" and words[1:3] == ["-m", "pip"]
        return first == "uv" and words[1:2] == ["pip"]
    def evict(before):
        after = versions()
        changed = sorted({n for n in after if before.get(n) != after[n]} | {n for n in before if n not in after})
        evicted = []
        for name in changed:
            for module in modules_of(name):
                for key in [k for k in sys.modules if k == module or k.startswith(module + ".")]:
                    del sys.modules[key]
                    evicted.append(key)
        importlib.invalidate_caches()
        # Nothing was loaded: nothing to say (a notebook stores this line as the cell's output).
        if evicted:
            print(f"(evicted {len(evicted)} loaded modules of {', '.join(changed)}: the next import loads what was installed)")
    # A failed !cmd (and so a failed %pip) raises, instead of printing an error and counting as success; after a pip
    # command the modules of every distribution it changed leave sys.modules.
    shell_system = ip.system
    def system(cmd):
        before = versions() if is_pip(cmd) else None
        try:
            shell_system(cmd)
        finally:
            if before is not None:
                evict(before)
        code = ip.user_ns.get("_exit_code", 0)
        if code:
            raise RuntimeError(f"shell command failed with exit code {code}: {cmd}")
    ip.system = system
_runbound_setup()
del _runbound_setup

def tool(name, args=None):
    """Call one of this run's tools (the same gate as a model's call). Returns a dict: text plus structured fields."""
    import json as _json
    _reply = _json.loads(input(__RUNBOUND_BRIDGE_PREFIX__ + _json.dumps({"name": name, "args": args or {}})))
    if "error" in _reply:
        raise RuntimeError(_reply["error"])
    return _reply["result"]

# Not the user's variable: %who and %whos leave it out, as they leave out what IPython itself defines.
get_ipython().user_ns_hidden["tool"] = tool
