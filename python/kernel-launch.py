# runbound's start of ipykernel: ipykernel_launcher's, except that the kernel does not write its connection file
# again. The server wrote it whole (ports, key, CurveZMQ keys) into a folder the kernel's sandbox sees read-only — a
# folder the sandbox could write was one a confined process could replace with a link for the host's server to
# write through. ipykernel writes it again only because it compares its CurveZMQ keys (bytes) with the file's
# (text) and finds them different.
import sys
from pathlib import Path

# As ipykernel_launcher: not this script's folder on the path.
del sys.path[0]

from ipykernel import kernelapp as app

_write = app.IPKernelApp.write_connection_file


def _write_unless_written(self, **kwargs):
    if Path(self.abs_connection_file).exists():
        return
    _write(self, **kwargs)


app.IPKernelApp.write_connection_file = _write_unless_written
app.launch_new_instance()
