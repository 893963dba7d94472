"""How many pytest-xdist workers `make test` starts: two more than the cores this process may use, at most 8,
and no more than memory holds at ~1.75 GiB a worker (torch, a model and the windows and CLI processes its
tests start; 3 workers peaked at 5.2 GB in all on a 2-core machine).

Two more than the cores because much of the suite waits on processes it starts, and because on a machine kept
busy by other programs the suite's share of the CPU grows with its runnable processes (measured on 2 busy
cores: 9 min 53 s with 4 workers, 10 min 55 s with 3)."""

from __future__ import annotations

import os

PER_WORKER_GIB = 1.75


def available_gib() -> float:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 64.0  # not Linux: memory is not the limit we can read, the cores are


def workers() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores + 2, 8, int(available_gib() // PER_WORKER_GIB)))


if __name__ == "__main__":
    print(workers())
