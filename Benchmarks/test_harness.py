"""Self-tests of the harness's parsers and table (no servers): python3 -m unittest discover -s Benchmarks"""

import socket
import threading
import types
import unittest

from harness.baselines import FLOOR_LINE
from harness.common import Row
from harness.rawhttp import Connection
from harness.report import cells, format_ratio
from harness.servers import parse_h2load, run_wrk

WRK_OUTPUT = """Running 5s test @ http://127.0.0.1:8080/doc
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   412.00us  100.00us   3.20ms   90.00%
  Latency Distribution
     50%  380.00us
     75%  450.00us
     90%  600.00us
     99%    1.25ms
  400000 requests in 5.00s, 90.00MB read
  Non-2xx or 3xx responses: 12
Requests/sec:  80000.50
Transfer/sec:     18.00MB
"""


H2LOAD_OUTPUT = """finished in 1.06s, 3233.00 req/s, 3.37MB/s
requests: 3233 total, 3265 started, 3233 done, 3233 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 3233 2xx, 0 3xx, 0 4xx, 0 5xx
traffic: 3.37MB (3530479) total, 63.14KB (64660) headers (space savings 47.37%), 3.14MB (3287961) data
"""


def serve_once(payload):
    """A one-shot server that reads a request and answers `payload`; returns its port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def answer():
        connection, _ = server.accept()
        connection.recv(65536)
        for piece in payload:
            connection.sendall(piece)
        connection.close()
        server.close()

    threading.Thread(target=answer, daemon=True).start()
    return server.getsockname()[1]


class HarnessTests(unittest.TestCase):
    def test_wrk_output_gives_rate_percentiles_and_errors(self):
        bench = types.SimpleNamespace(pin_load=[], wrk="wrk", wrk_threads=1, wrk_seconds=5,
                                      run=lambda argv, timeout=None: WRK_OUTPUT)
        figures = run_wrk(bench, "http://127.0.0.1:8080/doc")
        self.assertEqual(figures["rps"], 80000.50)
        self.assertAlmostEqual(figures["p50_ms"], 0.38)
        self.assertAlmostEqual(figures["p99_ms"], 1.25)
        self.assertEqual(figures["errors"], 12)

    def test_h2load_output_gives_rate_successes_and_data_bytes(self):
        figures = parse_h2load(H2LOAD_OUTPUT)
        self.assertEqual(figures, {"rps": 3233.0, "succeeded": 3233, "data_bytes": 3287961})
        with self.assertRaises(RuntimeError):
            parse_h2load(H2LOAD_OUTPUT.replace("3233 succeeded, 0 failed", "3230 succeeded, 3 failed"))

    def test_fan_out_floor_line_gives_p50_and_p99_of_write_and_read_all(self):
        line = ("fan-out floor: 1000 streams, 102 B event, 21 rounds: write all p50 6.75 ms p99 9.40 ms; "
                "write and read all p50 8.17 ms p99 10.90 ms")
        match = FLOOR_LINE.search(line)
        self.assertEqual((float(match.group(1)), float(match.group(2))), (8.17, 10.90))

    def test_chunked_response_split_across_packets_is_reassembled(self):
        port = serve_once([b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
                           b"lo\r\n6\r\n world\r\n0\r\n\r\n"])
        connection = Connection(port)
        status, _, body = connection.request("GET", "/")
        connection.close()
        self.assertEqual((status, body), (200, b"hello world"))

    def test_content_length_body_is_read_whole(self):
        port = serve_once([b"HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nno", b"pe"])
        connection = Connection(port)
        status, _, body = connection.request("GET", "/")
        connection.close()
        self.assertEqual((status, body), (404, b"nope"))

    def test_pending_row_shows_its_status_and_no_verdict(self):
        row = Row("4", "query", "ms", "lower", target=50, status="pending (feature not built)")
        line = cells(row)
        self.assertEqual(line[2], "pending (feature not built)")
        self.assertEqual(line[-1], "—")

    def test_verdict_follows_the_direction_of_the_target(self):
        self.assertTrue(Row("3", "p50", "µs", "lower", value=150, target=200).target_met())
        self.assertFalse(Row("3", "p50", "µs", "lower", value=250, target=200).target_met())
        self.assertTrue(Row("3", "rate", "req/s", "higher", value=40_000, target=30_000).target_met())
        self.assertFalse(Row("4", "10k", "ms", "lower", value=10, met=False).target_met())

    def test_ratio_keeps_small_ratios_readable(self):
        self.assertEqual(format_ratio(0.002), "1/500×")
        self.assertEqual(format_ratio(0.05), "0.050×")
        self.assertEqual(format_ratio(1.234), "1.23×")
        self.assertEqual(format_ratio(None), "—")


if __name__ == "__main__":
    unittest.main()
