"""A stand-in worker for tests/eval/test_worker_exit.py: it says hello and done, then takes `linger`
seconds to exit (as a worker's CUDA context teardown does), writing a line to its channel meanwhile.
Run as `python -m tests.eval.slow_exit_worker JOB CHANNEL_FD`."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    fd = int(sys.argv[2])
    os.write(fd, (json.dumps({"event": "hello", "pid": os.getpid(), "at": time.monotonic()}) + "\n").encode())
    os.write(fd, (json.dumps({"event": "done", "messages": 2}) + "\n").encode())
    time.sleep(job["linger"] / 2)
    os.write(fd, b"written after done\n")  # never read by a parent that ended the worker at done
    time.sleep(job["linger"] / 2)
    os._exit(0)


if __name__ == "__main__":
    main()
