"""Baselines measured in the same run, computed once and shared by the scenarios that compare
against them: nginx (1 and 2 workers), this repo's bare epoll server, a raw loopback echo,
mock-firestore, the in-process SSE fan-out floor and the bare fan-out floor (no server)."""

import json
import re
import resource

from .common import median
from .rawhttp import encode_request
from .servers import EchoServer, Nginx, RawServer, run_wrk
from .workloads import cold_start, echo_latency, serial_latency


class Missing(Exception):
    """A baseline whose tool is not installed; its text says what to install."""


def cached(bench, key, compute):
    if key not in bench.baselines:
        try:
            bench.baselines[key] = compute()
        except Missing as missing:
            bench.baselines[key] = missing
    value = bench.baselines[key]
    if isinstance(value, Missing):
        raise value
    return value


def need_wrk(bench):
    if not bench.wrk:
        raise Missing("wrk not installed (apt-get install -y wrk)")


def need_nginx(bench):
    need_wrk(bench)
    if not bench.nginx:
        raise Missing("nginx not installed (apt-get install -y nginx-light)")


def nginx_get(bench, workers):
    """Median req/s of wrk GET on nginx's static 223 B document at 32 connections."""
    def compute():
        need_nginx(bench)
        figures = []
        with Nginx(bench, workers) as nginx:
            for _ in range(bench.runs):
                figures.append(run_wrk(bench, nginx.url)["rps"])
        return median(figures)
    return cached(bench, f"nginx{workers}", compute)


def raw_server_get(bench):
    """Median req/s of wrk GET on `EmulatorBenchmarks http-serve` (the bare transport)."""
    def compute():
        need_wrk(bench)
        figures = []
        with RawServer(bench) as server:
            for _ in range(bench.runs):
                figures.append(run_wrk(bench, server.url)["rps"])
        return median(figures)
    return cached(bench, "raw-get", compute)


def nginx_serial(bench):
    """(p50 µs, p99 µs) of the harness's Python client doing serial GETs on nginx."""
    def compute():
        if not bench.nginx:
            raise Missing("nginx not installed (apt-get install -y nginx-light)")
        p50s, p99s = [], []
        with Nginx(bench, 1) as nginx:
            raw = [encode_request("GET", "/doc.json", nginx.port)]
            for _ in range(bench.runs):
                p50, p99, _ = serial_latency(nginx.port, raw, bench.size(5000, 200))
                p50s.append(p50)
                p99s.append(p99)
        return median(p50s), median(p99s)
    return cached(bench, "nginx-serial", compute)


def echo_rtt(bench):
    """(p50 µs, p99 µs) of a 256 B round trip through a raw loopback echo server."""
    def compute():
        p50s, p99s = [], []
        with EchoServer(bench) as echo:
            for _ in range(bench.runs):
                p50, p99 = echo_latency(echo.port, bench.size(5000, 200))
                p50s.append(p50)
                p99s.append(p99)
        return median(p50s), median(p99s)
    return cached(bench, "echo", compute)


def raw_cold_start(bench):
    """(ms, VmRSS KiB) of `EmulatorBenchmarks http-serve` from spawn to its first answer."""
    def compute():
        times, rss = [], []
        for _ in range(max(bench.runs, 1 if bench.quick else 5)):
            server = RawServer(bench)
            ms, vmrss, _ = cold_start(bench, server.argv(), None, server.port,
                                      encode_request("GET", "/doc", server.port))
            times.append(ms)
            rss.append(vmrss)
        return median(times), median(rss)
    return cached(bench, "raw-cold", compute)


def mock_firestore(bench):
    """mock-firestore figures (see mock_firestore_baseline.py) at the run's sizes."""
    def compute():
        if not bench.mock_python:
            raise Missing("mock-firestore not installed (python3 -m venv Benchmarks/.venv && "
                          "Benchmarks/.venv/bin/pip install mock-firestore)")
        script = f"{bench.repo}/Benchmarks/harness/mock_firestore_baseline.py"
        output = bench.run(bench.pin_server + [bench.mock_python, script, str(bench.bulk_docs),
                                               str(bench.query_docs), str(bench.runs)], timeout=1800)
        return json.loads(output.strip().splitlines()[-1])
    return cached(bench, "mock", compute)


def in_process_fan_out(bench, streams):
    """(ms, label): median time until `streams` in-process SSE clients have read one event.

    The in-process run holds both ends of every stream, so it needs 2 descriptors per stream;
    under a lower RLIMIT_NOFILE it runs the largest count that fits and scales linearly (the
    cost per stream is flat: about 5 to 7 µs on the benchmark machine), saying so in the label.
    """
    def compute():
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        feasible = min(streams, (soft - 200) // 2)
        output = ""
        for _ in range(2):  # one retry: a transient socket failure says nothing about the floor
            output = bench.run(bench.pin_server + [bench.benchmarks, "sse-fanout", "--streams", str(feasible)],
                               timeout=600, check=False)
            match = re.search(r"all delivered and read ([\d.]+) ms", output)
            if match:
                label = "in-process transport floor (sse-fanout)"
                if feasible < streams:
                    label += f", {feasible:,} streams scaled ×{streams / feasible:.2f} (fd limit {soft})"
                return float(match.group(1)) * streams / feasible, label
        raise RuntimeError("EmulatorBenchmarks sse-fanout failed: " + output.strip()[-200:])
    return cached(bench, f"sse-{streams}", compute)


FLOOR_LINE = re.compile(r"write and read all p50 ([\d.]+) ms p99 ([\d.]+) ms")


def fan_out_floor(bench, streams, pinned=True):
    """((p50 ms, p99 ms), label): the bare fan-out floor, measured in this run:
    `EmulatorBenchmarks fanout-floor` (one thread, blocking `send` of a 102 B event to
    K loopback sockets, then reads them all; no server, no concurrent reader), 21 rounds.

    It holds both ends of every stream (2 descriptors each); under a lower RLIMIT_NOFILE it runs
    the largest count that fits and scales linearly (the cost per stream is flat), saying so.
    """
    def compute():
        if "fanout-floor" not in bench.in_process_scenarios():
            raise Missing("EmulatorBenchmarks has no fanout-floor scenario (older build)")
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        feasible = min(streams, (soft - 200) // 2)
        pin = bench.pin_server if pinned else []
        output = ""
        for _ in range(2):  # one retry: a transient socket failure says nothing about the floor
            output = bench.run(pin + [bench.benchmarks, "fanout-floor", "--streams", str(feasible)],
                               timeout=600, check=False)
            match = FLOOR_LINE.search(output)
            if match:
                scale = streams / feasible
                label = "floor (fanout-floor" + (", CPU 0" if pin else "")
                if feasible < streams:
                    label += f", {feasible:,} streams ×{scale:.2f}"
                label += ")"
                return (float(match.group(1)) * scale, float(match.group(2)) * scale), label
        raise RuntimeError("EmulatorBenchmarks fanout-floor failed: " + output.strip()[-200:])
    return cached(bench, f"floor-{streams}-{pinned}", compute)
