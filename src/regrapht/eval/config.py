"""Evaluation settings, with defaults chosen for trustworthy numbers at search speed."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass
class TimingConfig:
    warmup_rounds: int = 3
    warmup_s: float = 0.1  # fewer warm-up rounds for kernels slower than this per round (at least one)
    min_rounds: int = 10
    # Timing (its warm-up included) goes on for at least this long, within the budget: ten rounds of
    # a 0.2 ms kernel span a few milliseconds, and a median should cover more of the device than that.
    min_s: float = 0.1
    max_rounds: int = 400
    target_rse: float = 0.005  # stop when every timed kernel's relative standard error is below this
    budget_s: float = 1.0  # per evaluation, for the candidate and its interleaved baselines together
    # A candidate's timing also stops once its median is known to `interval_own_halfwidth` and its
    # time over each interleaved baseline, from the rounds' paired ratios, to `interval_halfwidth`
    # (95% distribution-free intervals, eval/stop_rule.py), after `interval_floor_rounds` timed rounds
    # (at least 6) and `min_s`: a heavy tail of slow calls no longer keeps it to the budget.
    # interval_stop off: the rule above alone.
    interval_stop: bool = True
    interval_halfwidth: float = 0.005
    interval_own_halfwidth: float = 0.01
    interval_floor_rounds: int = 6
    # library.cu (where a task has one) is timed beside each candidate for the candidate's fraction of the
    # vendor library, which no reward uses: its mean and its ratio are wanted to these looser bounds (both
    # rules), so a library call whose own launch work varies from call to call (CUB's, cuBLAS's) does not
    # keep a timing to its budget. Measured (session 14, stop_rule_probe.py on an H100): the library's
    # paired ratio was known to 1.0-1.6% (spmv_csr) and 1.1-1.3% (inclusive_scan) while the candidate's
    # and naive.cu's were within 0.5%, and those tasks' timings ran to the budget. `tasks check` keeps the
    # strict bounds: the suite's library fractions are its numbers.
    library_target_rse: float = 0.02
    library_halfwidth: float = 0.02
    input_sets: int = 2  # distinct input sets rotated through the timed calls at the same pointers
    # Every timed call sees its set's perturbable inputs perturbed with a key of its own, so no call
    # repeats an input a candidate has seen (eval/perturb.py). Off: the sets repeat as drawn.
    fresh_inputs: bool = True
    # Device calls only: before each timed call the device is held busy this long, ahead of the start
    # event, so the host's launch latency (a few microseconds, varying between processes) is not
    # timed with the kernel. 0 times from an idle device.
    hold_s: float = 20e-6
    # The same hold before each timed call of a torch task (candidate and baselines alike): a Python
    # forward's launch path is tens of microseconds (a Triton launcher, torch.compile's guards) and
    # varies with the host core it runs on, so 20 us does not cover it. 0 times from an idle device,
    # launch path and all. Measured on an H100 (session 13, relu's Triton candidate, 10 fresh
    # evaluations): without the hold 0.80x or 0.90x over eager by process (12.55% spread), with 300 us
    # one mode at 1.0007x (0.16% spread; candidates' dispatch 43-100 us, eager's 21-54 us).
    torch_hold_s: float = 300e-6
    # The serial reference, timed once per run and task. 1 s instead of 3 s gained no throughput on
    # an H200 (bench-data builds are input generation and serial outputs, not serial timing).
    serial_budget_s: float = 3.0
    serial_max_rounds: int = 50
    # The serial timing runs alone: no compile, input draw, reference output run or candidate worker
    # of the evaluator starts while it runs, and it waits up to `serial_quiet_wait_s` for those in
    # flight to end. Only where no kept baseline exists (EvalConfig.serial_cache).
    serial_quiet: bool = True
    serial_quiet_wait_s: float = 30.0
    # A fresh serial timing is kept as the machine's baseline only when it began quiet, its median is
    # known to within this fraction (the median's relative standard error, estimated from the samples'
    # interquartile range and count), and other processes kept no more than this many cores busy
    # meanwhile. Otherwise it serves its own run, and the next run times again.
    serial_max_median_error: float = 0.01
    serial_max_background: float = 0.5
    # A batch's end times up to this many tasks' serial references at once per lane (or evaluator),
    # each pinned to a physical core of its own (eval/settle.py); a timing that fails the rule above
    # on its own is timed again alone. 0: one per physical core the lane may use; 1: one at a time.
    # 1 by default: on an H100 host (session 14, call C: 10 tasks on 16 cores, no SMT) every pinned
    # timing failed the rule and was timed again alone, so the settle took 138.8 s of wall against
    # 62-72 s one at a time (session 13, 14 call B).
    serial_settle_width: int = 1
    # Lanes of a pool on cores of their own settle at the same time, each within its cores, pinned
    # (`serial_settle_width` timings a lane, sharing the batch's slots); off: one lane after another
    # (each timing alone, or pinned within its cores where the width is not 1). Off by default: on
    # an H100 host (session 15, call C) the ten throughput tasks' medians timed so, beside the other
    # lane's, sat -21% to +40% from the same tasks timed alone in the same call (saxpy +35%,
    # spmv_csr +40%, gemv +30%, softmax_rows -21%), far beyond their errors (1-9%), and a kept
    # baseline serves every later run. `benchmarks/serial_pinned.py --width 2` says
    # whether a host times alike side by side; turn it on only where it does.
    serial_settle_lanes_at_once: bool = False
    # Where lanes settle at once, a pinned timing beside at most this many others is kept from a pool
    # of runs whatever its spread, as an alone one is (SerialBaseline.problem); beside more, or
    # pinned beside its own lane's timings, its median must be pinned or it is timed again alone.
    serial_pinned_pool_beside: int = 1
    # Also time each pinned task alone, briefly (3 rounds), after every pinned timing has ended, and
    # time it again alone in full where the two medians disagree by more than their errors allow.
    # Off: it costs a reference process per task; benchmarks/serial_pinned.py says whether a host
    # needs it.
    serial_settle_check: bool = False


@dataclass
class EvalConfig:
    seeds: int = 3  # per test size
    timing: bool = True
    timing_config: TimingConfig = field(default_factory=TimingConfig)
    static_screen: bool = (
        True  # block candidates the screen flags (tests turn it off to reach runtime checks)
    )
    # Read the built library's imported symbols and instructions (eval/symbols.py) before running it.
    symbol_screen: bool = True
    # Confine each candidate's worker with Landlock and seccomp where the kernel offers them
    # (eval/sandbox.py); the record says which protections were active. With require_sandbox, an
    # evaluator on a kernel without both refuses to start, and one whose sandbox fails stops.
    sandbox: bool = True
    require_sandbox: bool = False
    call_timeout_s: float = 20.0  # a call (or a timing round) with no progress for this long is a hang
    total_timeout_s: float = 300.0
    memory_limit_gib: float = 16.0  # host memory of one worker
    reward_baseline: str = "serial"  # or "naive"
    compare_naive: bool = True  # time the task's naive.cu beside cuda candidates
    compare_library: bool = True  # time the task's library.cu (cuBLAS, CUB...) beside cuda candidates
    # Flag times below this fraction of the physical floor. The floor's bandwidth is a measured
    # device-to-device copy, which read-mostly kernels beat: honest ones reached 110% on an H200.
    plausibility_margin: float = 0.7
    event_host_slack: float = 1.5  # host time above event time by this factor (+100 us) means hidden work
    secret: bytes | None = None  # per-run secret for input seeds; random when None
    cache_dir: str | None = None
    jobs: int | None = None  # parallel compilations; all cores when None
    # A device pool on this host gives each GPU lane's process its own share of the cores, nearest
    # its GPU first (eval/devices.py `split_cores`), so lanes do not slow each other's host work.
    pin_lanes: bool = True
    # Tasks whose bench data `evaluate_many` prepares at once, ahead of the device (their serial
    # timings take turns). Measured on an H100 host, 50 candidates over 10 tasks: 2 threads left
    # the device waiting 15-22 worker-seconds for bench data, 4 threads 12-15 (docs/benchmarks.md).
    reference_threads: int = 4
    # Bench data of tasks no queued candidate needs stays, up to this much (None: a quarter of the
    # machine's memory, at least 2 GiB), so a search's later batches reuse it instead of rebuilding it.
    reference_cache_gib: float | None = None
    # A batch starts no worker whose task's bench data is being built, or not yet started (it starts
    # that build), while it can wait for the build instead: the worker would hold the device idle
    # meanwhile (batch.next_runnable). Off: its correctness cases run during the build, and its
    # timing waits for the data.
    wait_for_bench_data: bool = True
    # Start the next cuda worker's Python during the current candidate, its CUDA context once that
    # candidate is measured.
    spare_worker: bool = True
    # Keep each task's serial baseline, timed once in quiet, for every later evaluator on this machine
    # (eval/serial_baselines.py), in `serial_store` (None: serial-baselines.sqlite in the compile cache).
    serial_cache: bool = True
    serial_store: str | None = None
    # Torch tasks: the baselines timed beside each candidate (eager, compile, max-autotune,
    # cudagraph; eager always). None: eager and compile on cuda, eager on cpu (eval/torch_judge.py).
    # `reward_baseline` names one of them for torch tasks (anything else: eager).
    torch_baselines: tuple[str, ...] | None = None
    # Torch workers kept started ahead on cuda (with spare_worker): torch's import takes ~7 s and a
    # candidate's device turn ~2-5 s, so one spare was often still importing when its turn came.
    torch_spares: int = 3

    def reference_cache_bytes(self) -> int:
        if self.reference_cache_gib is not None:
            return int(self.reference_cache_gib * (1 << 30))
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError):
            total = 8 << 30
        return max(2 << 30, total // 4)
