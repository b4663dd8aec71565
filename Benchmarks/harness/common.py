"""Shared pieces of the benchmark harness: the run context, result rows, commands, processes."""

import os
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

PROJECT = "demo-bench"
RTDB_NAMESPACE = f"{PROJECT}-default-rtdb"


@dataclass
class Row:
    """One line of the results table.

    `value` is the median over runs; `better` says which direction is good ("higher" or
    "lower"); `status` is "" for a measured figure, otherwise a short reason shown instead
    of the figure ("pending (feature not built)", "skipped: …", "error: …").
    """

    number: str
    name: str
    unit: str
    better: str = "higher"
    value: float | None = None
    baseline: float | None = None
    baseline_label: str = ""
    target: float | None = None
    target_text: str = ""
    met: bool | None = None
    status: str = ""
    note: str = ""
    samples: list = field(default_factory=list)

    def ratio(self):
        """figure ÷ baseline, or None."""
        if self.value is None or not self.baseline:
            return None
        return self.value / self.baseline

    def target_met(self):
        """True/False against the target (an explicit `met` wins when False or no target), else None."""
        if self.status or self.value is None:
            return None
        if self.met is False:
            return False
        if self.target is None:
            return self.met
        return self.value >= self.target if self.better == "higher" else self.value <= self.target


class Bench:
    """Everything a scenario needs: options, tools, pinning, the command log and the rows."""

    def __init__(self, options, repo, bin_dir, tmp):
        self.quick = options.quick
        self.runs = 1 if options.quick and options.runs is None else (options.runs or 3)
        self.only = options.only
        self.repo = repo
        self.bin_dir = bin_dir
        self.tmp = tmp
        self.rows: list[Row] = []
        self.commands: list[str] = []
        self.notes: list[str] = []
        self.cleanups: list = []
        self.wrk_seconds = options.duration or (1 if options.quick else 5)
        self.bulk_docs = options.bulk_docs or (2_000 if options.quick else 1_000_000)
        self.query_docs = 2_000 if options.quick else 100_000
        self.snapshot_mb = options.snapshot_mb or (2 if options.quick else 1024)
        self.cpus = os.cpu_count() or 1
        can_pin = self.cpus >= 2 and _which("taskset") is not None
        self.pin_server = ["taskset", "-c", "0"] if can_pin else []
        self.pin_load = ["taskset", "-c", "1"] if can_pin else []
        self.wrk_threads = 1 if can_pin else 2
        self.wrk = _which("wrk")
        self.h2load = _which("h2load")
        self.nginx = _which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
        venv_python = os.path.join(repo, "Benchmarks", ".venv", "bin", "python")
        self.mock_python = venv_python if _has_mock_firestore(venv_python) else None
        self.baselines: dict = {}

    # Sizes -------------------------------------------------------------------------------
    def size(self, full, quick):
        return quick if self.quick else full

    # Binaries ----------------------------------------------------------------------------
    @property
    def emulators(self):
        return os.path.join(self.bin_dir, "emulators")

    @property
    def benchmarks(self):
        return os.path.join(self.bin_dir, "EmulatorBenchmarks")

    def in_process_scenarios(self):
        """The scenario names `EmulatorBenchmarks` lists in its usage (what this build has)."""
        if not hasattr(self, "_in_process"):
            try:
                usage = subprocess.run([self.benchmarks, "help"], stdout=subprocess.PIPE, text=True,
                                       timeout=30).stdout
            except (OSError, subprocess.TimeoutExpired):
                usage = ""
            self._in_process = {line.split()[0] for line in usage.splitlines() if line.startswith("  ") and line.split()}
        return self._in_process

    # Commands ----------------------------------------------------------------------------
    def record(self, argv, cwd=None):
        """Prints and remembers one exact command."""
        text = shlex.join(str(a) for a in argv)
        if cwd:
            text = f"(cd {shlex.quote(cwd)} && {text})"
        print(f"$ {text}", flush=True)
        self.commands.append(text)

    def describe(self, text):
        """Prints and remembers a step the harness's own Python client performs."""
        line = f"# harness (python): {text}"
        print(line, flush=True)
        self.commands.append(line)

    def run(self, argv, cwd=None, timeout=None, check=True):
        """Runs a command to completion, recording it; returns stdout as text."""
        self.record(argv, cwd)
        done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=timeout)
        if check and done.returncode != 0:
            tail = "\n".join(done.stdout.splitlines()[-15:])
            raise RuntimeError(f"{shlex.join(str(a) for a in argv[:3])}… exited {done.returncode}:\n{tail}")
        return done.stdout

    def spawn(self, argv, cwd=None, log_path=None):
        """Starts a long-running process (recorded, cleaned up at exit); returns the Popen."""
        self.record(argv, cwd)
        out = open(log_path, "wb") if log_path else subprocess.DEVNULL
        process = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        if log_path:
            out.close()
        self.cleanups.append(lambda: stop_process(process))
        return process

    def cleanup(self):
        while self.cleanups:
            action = self.cleanups.pop()
            try:
                action()
            except Exception as error:  # cleanup must go on
                print(f"cleanup: {error}", file=sys.stderr)

    # Rows --------------------------------------------------------------------------------
    def add(self, row: Row):
        self.rows.append(row)
        shown = row.status or f"{format_value(row.value, row.unit)}"
        print(f"  -> [{row.number}] {row.name}: {shown}", flush=True)
        return row


def _which(name):
    for directory in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/sbin", "/sbin"]:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _has_mock_firestore(python):
    if not os.access(python, os.X_OK):
        return False
    try:
        return subprocess.run([python, "-c", "import mockfirestore"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def stop_process(process, grace=10.0):
    """Stops a process we started, by its PID: SIGTERM, then SIGKILL after `grace` seconds."""
    if process.poll() is not None:
        return
    try:
        os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=5)
    except ProcessLookupError:
        pass


def free_port():
    return free_ports(1)[0]


def free_ports(count):
    """`count` distinct free loopback ports: every probe stays bound until all are chosen, so the
    kernel cannot hand the same ephemeral port out twice (it did: hub and Firestore collided)."""
    probes = []
    try:
        for _ in range(count):
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            probes.append(probe)
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def wait_for_port(port, timeout=30.0, interval=0.001):
    """Polls connect() every `interval` seconds until the port accepts; returns True if it did."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(interval)
    return False


def memory_kib(pid):
    """VmRSS and VmHWM of a process, in KiB, from /proc/<pid>/status."""
    figures = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                figures[key] = int(rest.split()[0])
    return figures


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def percentile(samples, fraction):
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def format_value(value, unit):
    if value is None:
        return "—"
    magnitude = abs(value)
    if magnitude >= 100:
        text = f"{value:,.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return f"{text} {unit}".strip()


def machine_description():
    """nproc, CPU model and memory, as one line."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = ""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemTotal"):
                    memory = f", {int(line.split()[1]) / 1048576:.1f} GiB RAM"
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({model}){memory}, kernel {os.uname().release}"
