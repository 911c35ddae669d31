"""What the reminder checks share: a tally of checks, and a `plantguide serve` started on a free port."""
import contextlib
import re
import subprocess
import sys
import time


class Check:
    """Counts checks and keeps the failed ones, so a run reports every failure, not the first."""

    def __init__(self):
        self.failures = []
        self.count = 0

    def expect(self, condition, what):
        self.count += 1
        if not condition:
            self.failures.append(what)
            print(f"  FAILED: {what}", file=sys.stderr)


@contextlib.contextmanager
def running_server(binary, env):
    """`plantguide serve --port 0` with `env`: yields its address (http://127.0.0.1:PORT), or None when it did not
    start within a minute; stopped on leaving."""
    server = subprocess.Popen([binary, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        base = None
        deadline = time.time() + 60
        while time.time() < deadline and base is None:
            line = server.stdout.readline()
            match = re.search(r"(http://127\.0\.0\.1:\d+)/", line or "")
            if match:
                base = match.group(1)
            elif not line and server.poll() is not None:
                break
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)
