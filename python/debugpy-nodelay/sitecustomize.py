"""
runbound puts this folder on PYTHONPATH for one process only: a program it debugs with debugpy.

pydevd (debugpy's engine inside the program) writes each message as two sends (header, then body) on a socket
without TCP_NODELAY, so every answer to the adapter waits out Nagle against the adapter's delayed ACK: measured
~44 ms per request, 176 ms for a step with its frames and locals; with TCP_NODELAY on that socket, 6 ms. This
module sets it on pydevd's socket (its NetCommand.send, patched as the module loads) and touches nothing else.

A sitecustomize runs at start-up and leaves no frame behind, so the program's stack, sys.argv and sys.path are
what debugpy makes them. The environment is given back as it was (PYTHONPATH restored, this folder off sys.path),
and the environment's own sitecustomize, if it has one, still runs. An unknown debugpy layout changes nothing.
"""
import importlib
import importlib.abc
import importlib.util
import os
import socket
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _restore_environment():
    original = os.environ.pop("RUNBOUND_ORIGINAL_PYTHONPATH", None)
    if original is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = original
    sys.path[:] = [p for p in sys.path if os.path.abspath(p) != _HERE]


class _NoDelayOnPydevdSocket(importlib.abc.MetaPathFinder):
    MODULE = "_pydevd_bundle.pydevd_net_command"

    def find_spec(self, name, path=None, target=None):
        if name != self.MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            try:
                send = module.NetCommand.send

                def send_without_nagle(self, sock, *args, **kwargs):
                    try:
                        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    except Exception:
                        pass
                    return send(self, sock, *args, **kwargs)

                module.NetCommand.send = send_without_nagle
            except Exception:
                pass

        spec.loader.exec_module = exec_module
        return spec


_restore_environment()
sys.meta_path.insert(0, _NoDelayOnPydevdSocket())

# The environment's own sitecustomize, found now that this folder is off sys.path. The import system reads
# sys.modules["sitecustomize"] back after this file runs: it must hold that one, or this one when there is none
# (an empty entry prints "Error in sitecustomize … KeyError" into the program's stderr).
_this = sys.modules.pop(__name__)
try:
    importlib.import_module("sitecustomize")
except ImportError as error:
    sys.modules[__name__] = _this
    if error.name != "sitecustomize":
        raise
