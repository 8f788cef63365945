"""What the Python scripts in this directory share (they import it: a script's own directory is on
Python's path)."""
import socket


def free_port():
    """A loopback TCP port nothing listens on right now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
