# The configuration of runbound's Jupyter servers (jupyter_server_config.py; the token is appended per server).
# - TCP_NODELAY on the kernel websocket: a cell's messages waited on Nagle's algorithm.
# - No IOPub rate limit: it drops output; runbound bounds output itself.
# - CurveZMQ keys for kernels whose kernelspec says they take them (runbound's ipykernel).
# - A shared server's kernels: connection files in their run's own folder (RUNBOUND_KERNEL_DIR), which only that
#   run's sandbox sees; an interrupt sent to the processes inside the sandbox (RUNBOUND_KERNEL_CONFINED), since
#   bubblewrap does not pass signals on.
# - A kernel's stderr in a file of the server's private folder (RUNBOUND_KERNEL_STDERR_DIR), named by the kernel's
#   id: a kernel that dies as it starts is told with its own words, and only to the run that started it.
# - One message to runbound bounded (16 MB): a larger one is cut to what runbound keeps, saying what it cut.
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

# One message to runbound is bounded: a cell that wrote 120 MB without a newline made ipykernel send it as one
# stream message (it gathers what was written between flushes), over the WebSocket client's 100 MiB message limit;
# the connection closed, the server replayed the message to the reconnecting client, which closed again — the
# cell's answer was lost, then its kernel. runbound keeps only the end of a stream (32 KB), a displayed value's
# text, and images up to 8 MB, so a larger message is cut here to what runbound can use, and says how much it cut.
import json as _json
import re as _re

from jupyter_server.services.kernels.connection.channels import (
    ZMQChannelsWebsocketConnection as _Channels,
)

_MESSAGE_BYTES = 16 * 1024 * 1024
_TEXT_KEPT = 256 * 1024
_DATA_KEPT = 8 * 1024 * 1024
_TRACEBACK_LINES = 200
# A colour code (CSI); its classes do not overlap, so matching it cannot backtrack.
_CSI = _re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def _bounded_content(msg_type, content):
    """The content cut to what runbound keeps; `runbound_dropped` says what went (characters, or each MIME's size)."""
    if msg_type == "stream":
        text = content.get("text", "")
        if len(text) > _TEXT_KEPT:
            content = dict(content, text=text[-_TEXT_KEPT:], runbound_dropped=len(text) - _TEXT_KEPT)
    elif msg_type in ("display_data", "execute_result", "update_display_data"):
        data, dropped = {}, {}
        for mime, value in (content.get("data") or {}).items():
            size = len(value) if isinstance(value, str) else len(_json.dumps(value))
            if mime == "text/plain" and size > _TEXT_KEPT:
                data[mime] = value[-_TEXT_KEPT:]
                dropped[mime] = size
            elif size > _DATA_KEPT:
                dropped[mime] = size
            else:
                data[mime] = value
        if dropped:
            content = dict(content, data=data, runbound_dropped=dropped)
    elif msg_type == "error" or (msg_type == "execute_reply" and content.get("status") == "error"):
        # As runbound reads a traceback: its entries joined, then line by line. A line cut here is named by its
        # index with the length it had without colour codes, so the answer says how long it really was.
        lines = "\n".join(str(entry) for entry in content.get("traceback") or []).split("\n")
        if len(lines) > 2 * _TRACEBACK_LINES:
            lines = lines[:_TRACEBACK_LINES] + ["..."] + lines[-_TRACEBACK_LINES:]
        lengths = {}
        for i, line in enumerate(lines):
            if len(line) > _TEXT_KEPT:
                lengths[str(i)] = len(_CSI.sub("", line))
                lines[i] = line[:_TEXT_KEPT]
        evalue = str(content.get("evalue", ""))
        if len(evalue) > _TEXT_KEPT:
            lengths["value"] = len(evalue)
        content = dict(content, evalue=evalue[:_TEXT_KEPT], traceback=["\n".join(lines)], runbound_dropped=lengths)
    return content


def _bounded(msg_or_parts):
    if isinstance(msg_or_parts, dict):
        # The JSON subprotocol: the message already taken apart.
        content = msg_or_parts.get("content") or {}
        size = sum(len(v) for v in content.values() if isinstance(v, str))
        size += sum(len(_json.dumps(v)) for v in (content.get("data") or {}).values())
        size += sum(len(line) for line in content.get("traceback") or [])
        if size <= _MESSAGE_BYTES:
            return msg_or_parts
        msg_type = (msg_or_parts.get("header") or {}).get("msg_type")
        return dict(msg_or_parts, content=_bounded_content(msg_type, content))
    # v1.kernel.websocket.jupyter.org: header, parent header, metadata, content, buffers, as bytes.
    parts = list(msg_or_parts)
    if len(parts) < 4 or sum(len(bytes(p)) for p in parts) <= _MESSAGE_BYTES:
        return msg_or_parts
    msg_type = _json.loads(bytes(parts[0])).get("msg_type")
    content = _bounded_content(msg_type, _json.loads(bytes(parts[3])))
    parts[3] = _json.dumps(content).encode()
    return parts


_on_zmq_reply = _Channels._on_zmq_reply


def _on_zmq_reply_bounded(self, stream, msg_list):
    # Every channel: an error's value comes on iopub and again in the shell channel's execute_reply. A message this
    # cannot read goes on as it came: bounding must never lose one.
    try:
        bounded = _bounded(msg_list)
    except Exception:
        self.log.warning("runbound: a message could not be bounded; sent as it came", exc_info=True)
        bounded = msg_list
    return _on_zmq_reply(self, stream, bounded)


_Channels._on_zmq_reply = _on_zmq_reply_bounded
