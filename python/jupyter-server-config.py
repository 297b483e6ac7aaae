# The configuration of runbound's Jupyter servers (jupyter_server_config.py; the token is appended per server).
# - TCP_NODELAY on the kernel websocket: a cell's messages waited on Nagle's algorithm.
# - No IOPub rate limit: it drops output; runbound bounds output itself.
# - CurveZMQ keys for kernels whose kernelspec says they take them (runbound's ipykernel).
# - A shared server's kernels: connection files in their run's own folder (RUNBOUND_KERNEL_DIR), which only that
#   run's sandbox sees; an interrupt sent to the processes inside the sandbox (RUNBOUND_KERNEL_CONFINED), since
#   bubblewrap does not pass signals on.
# - A kernel's stderr in a file of the server's private folder (RUNBOUND_KERNEL_STDERR_DIR), named by the kernel's
#   id: a kernel that dies as it starts is told with its own words, and only to the run that started it.
# - No restarts: a kernel that dies is dead. runbound starts the next one at the next cell and says that the state
#   is gone; a restart behind its back ran the next cell in an empty kernel with no word of it.
from jupyter_server.services.kernels.websocket import KernelWebsocketHandler

_open = KernelWebsocketHandler.open

async def _open_nodelay(self, *args, **kwargs):
    self.set_nodelay(True)
    result = _open(self, *args, **kwargs)
    if hasattr(result, "__await__"):
        result = await result
    return result

KernelWebsocketHandler.open = _open_nodelay
c.ZMQChannelsWebsocketConnection.limit_rate = False

import zmq as _zmq
if _zmq.has("curve"):
    c.KernelManager.transport_encryption = "auto"

import os as _os
import signal as _signal
from jupyter_client.multikernelmanager import MultiKernelManager as _Multi
from jupyter_client.provisioning.local_provisioner import LocalProvisioner as _Local

_pre_start = _Multi.pre_start_kernel

def _pre_start_in_run_folder(self, kernel_name, kwargs):
    km, name, kernel_id = _pre_start(self, kernel_name, kwargs)
    folder = (km.kernel_spec.env or {}).get("RUNBOUND_KERNEL_DIR")
    if folder:
        km.connection_file = _os.path.join(folder, "kernel-%s.json" % kernel_id)
    return km, name, kernel_id

_Multi.pre_start_kernel = _pre_start_in_run_folder

def _descendants(root):
    children = {}
    for entry in _os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found

def _command_name(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""

_send_signal = _Local.send_signal

async def _send_signal_into_sandbox(self, signum):
    env = (getattr(self.kernel_spec, "env", None) or {})
    if signum == _signal.SIGINT and env.get("RUNBOUND_KERNEL_CONFINED") and self.process:
        for pid in _descendants(self.process.pid):
            if _command_name(pid) != "bwrap":
                try:
                    _os.kill(pid, signum)
                except OSError:
                    pass
        return
    await _send_signal(self, signum)

_Local.send_signal = _send_signal_into_sandbox

c.KernelRestarter.restart_limit = 0

_launch = _Local.launch_kernel

async def _launch_with_stderr_kept(self, cmd, **kwargs):
    folder = _os.environ.get("RUNBOUND_KERNEL_STDERR_DIR")
    if not folder or kwargs.get("stderr") is not None:
        return await _launch(self, cmd, **kwargs)
    try:
        # Never through a link: the folder is the server's own, and this stays true if it ever is not.
        fd = _os.open(
            _os.path.join(folder, "kernel-%s.stderr" % self.kernel_id),
            _os.O_WRONLY | _os.O_CREAT | _os.O_TRUNC | _os.O_NOFOLLOW,
            0o600,
        )
    except OSError:
        return await _launch(self, cmd, **kwargs)
    try:
        return await _launch(self, cmd, stderr=fd, **kwargs)
    finally:
        _os.close(fd)

_Local.launch_kernel = _launch_with_stderr_kept
