"""Fan-out of one PUT to N SSE streams: wall time (as the harness's fan-out scenario measures it)
and the server's CPU time per round (sum of /proc/<pid>/task/*/schedstat), which stays readable on a
loaded machine. PERF=1 also records `perf record -g` of the server into <tmpdir>/perf.data.

    taskset -c 1 python3 Benchmarks/fanout_cpu.py .build/release/emulators 10000 9
"""
import json, os, subprocess, sys, tempfile, time, statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness.workloads import StreamSet, fan_out_round, raise_file_limit
from harness.common import free_ports
from harness.rawhttp import Connection

binary, streams, rounds = os.path.abspath(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
raise_file_limit(30000)
d = tempfile.mkdtemp()
port, fport, hport = free_ports(3)
json.dump({"emulators": {"database": {"host": "127.0.0.1", "port": port}, "firestore": {"host": "127.0.0.1", "port": fport},
           "hub": {"host": "127.0.0.1", "port": hport}, "ui": {"enabled": False}}}, open(os.path.join(d, "firebase.json"), "w"))
log = open(os.path.join(d, "log"), "w")
p = subprocess.Popen(["taskset", "-c", "0", binary, "start", "--project", "demo-bench"], cwd=d, stdout=log, stderr=log)
try:
    for _ in range(600):
        if "All emulators ready!" in open(os.path.join(d, "log")).read(): break
        time.sleep(0.05)
    else:
        sys.exit("emulators did not start: " + open(os.path.join(d, "log")).read()[-500:])
    def cpu():
        total = 0
        for t in os.listdir(f"/proc/{p.pid}/task"):
            try: total += int(open(f"/proc/{p.pid}/task/{t}/schedstat").read().split()[0])
            except OSError: pass
        return total / 1e6
    s = StreamSet(port, "fan", streams)
    time.sleep(0.3)
    w = Connection(port)
    walls, cpus = [], []
    perf = subprocess.Popen(["perf", "record", "-F", "2999", "-g", "-p", str(p.pid), "-o", os.path.join(d, "perf.data")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if os.environ.get("PERF") else None
    if perf: time.sleep(1)
    for r in range(1, rounds + 1):
        c0 = cpu()
        ms, _ = fan_out_round(s, w, "fan", r)
        time.sleep(0.05)
        cpus.append(cpu() - c0); walls.append(ms)
    if perf: perf.send_signal(2); perf.wait()
    print(f"{binary}: {streams} streams: wall median {statistics.median(walls):.1f} ms (min {min(walls):.1f}); server CPU median {statistics.median(cpus):.1f} ms (schedstat)")
finally:
    p.terminate(); p.wait()
