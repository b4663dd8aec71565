"""Snapshots end to end: REST writes, `emulators export`, restart with --import, --export-on-exit,
the official on-disk layout, bad snapshots, and the live data directory surviving kill -9."""

import json
import os
import signal
import struct
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import free_ports, run_cli, wait_for_line

READY = "All emulators ready"


class Suite:
    """A second suite started in its own project directory, on free ports."""

    def __init__(self, binary: str, directory: Path, *args: str, project: str = "demo-snapshots"):
        self.firestore, self.database, self.hub = free_ports(3)
        config = {
            "firestore": {},
            "database": {},
            "emulators": {
                "firestore": {"port": self.firestore},
                "database": {"port": self.database},
                "hub": {"port": self.hub},
                "ui": {"enabled": False},
            },
        }
        (directory / "firebase.json").write_text(json.dumps(config))
        (directory / "tmp").mkdir(exist_ok=True)
        self.directory = directory
        self.project = project
        self.log = directory / f"suite-{time.monotonic_ns()}.log"
        env = dict(os.environ, TMPDIR=str(directory / "tmp"))
        self.process = subprocess.Popen(
            [binary, "start", "--project", project, *args],
            cwd=directory, env=env, stdout=self.log.open("w"), stderr=subprocess.STDOUT)

    def wait_ready(self) -> str:
        return wait_for_line(self.log, READY, self.process)

    def stop(self, sig=signal.SIGINT, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)

    def request(self, method: str, url: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method, headers={"Authorization": "Bearer owner"})
        try:
            with urllib.request.urlopen(req, timeout=10) as reply:
                return reply.status, json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def doc_url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.firestore}/v1/projects/{self.project}/databases/(default)/documents/{path}"

    def rtdb_url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.database}/{path}.json?ns={self.project}-default-rtdb"

    def put_doc(self, path: str, fields: dict):
        return self.request("PATCH", self.doc_url(path), {"fields": fields})

    def get_doc(self, path: str):
        return self.request("GET", self.doc_url(path))


def assert_acknowledged_writes_survive(suite, tmp_path, acknowledged):
    """Restarts the suite on the killed suite's `live` data directory and checks that every
    acknowledged write (`("rtdb", key)` under `/load`, `("firestore", key)` in `load/`) is there."""
    restarted = Suite(suite.binary, tmp_path, "--data-dir", "live")
    try:
        restarted.wait_ready()
        missing = []
        rtdb = restarted.request("GET", restarted.rtdb_url("load"))[1] or {}
        for kind, key in acknowledged:
            if kind == "rtdb":
                if key not in rtdb:
                    missing.append(key)
            elif restarted.get_doc(f"load/{key}")[0] != 200:
                missing.append(key)
        assert missing == [], f"{len(missing)} acknowledged writes lost of {len(acknowledged)}"
    finally:
        restarted.stop()


def test_export_then_import_restores_both_emulators(suite, tmp_path):
    first = Suite(suite.binary, tmp_path)
    try:
        first.wait_ready()
        assert first.put_doc("books/hitchhiker", {"title": {"stringValue": "The Hitchhiker's Guide to the Galaxy"},
                                                  "numberOfPages": {"integerValue": "816"}})[0] == 200
        written = first.get_doc("books/hitchhiker")[1]
        assert first.request("PUT", first.rtdb_url("users/u1"), {"username": "ada"})[0] == 200
        result = run_cli(suite.binary, "export", "backup", "--project", first.project, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "Export complete" in result.stdout
    finally:
        first.stop()
    layout = sorted(str(p.relative_to(tmp_path / "backup")) for p in (tmp_path / "backup").rglob("*") if p.is_file())
    assert layout == [
        "database_export/demo-snapshots-default-rtdb.json",
        "firebase-export-metadata.json",
        "firestore_export/all_namespaces/all_kinds/all_namespaces_all_kinds.export_metadata",
        "firestore_export/all_namespaces/all_kinds/output-0",
        "firestore_export/all_namespaces/all_kinds/output-0.emulators-times",
        "firestore_export/firestore_export.overall_export_metadata",
    ]
    second = Suite(suite.binary, tmp_path, "--import", "backup")
    try:
        second.wait_ready()
        status, doc = second.get_doc("books/hitchhiker")
        assert status == 200
        assert doc["fields"]["numberOfPages"] == {"integerValue": "816"}
        # The side file brings back the document's own times (the official format has none).
        assert (doc["createTime"], doc["updateTime"]) == (written["createTime"], written["updateTime"])
        assert second.request("GET", second.rtdb_url("users"))[1] == {"u1": {"username": "ada"}}
    finally:
        second.stop()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT], ids=lambda s: s.name)
def test_export_on_exit_writes_on_the_first_signal(suite, tmp_path, sig):
    running = Suite(suite.binary, tmp_path, "--export-on-exit", "saved")
    running.wait_ready()
    running.request("PUT", running.rtdb_url("colors/red"), "#FF0000")
    assert running.stop(sig) == 0
    assert f"Received {sig.name}" in running.log.read_text()
    assert json.loads((tmp_path / "saved/database_export/demo-snapshots-default-rtdb.json").read_text()) == {
        "colors": {"red": "#FF0000"}}


@pytest.mark.parametrize("kind", ["file", "foreign directory"])
def test_an_export_on_exit_target_the_export_would_refuse_fails_the_start(suite, tmp_path, kind):
    target = tmp_path / "saved"
    if kind == "file":
        target.write_text("mine")
        message = f'Error: Export target "{target}" is a file, not a directory.'
    else:
        target.mkdir()
        (target / "firestore_export").mkdir()
        (target / "notes.txt").write_text("mine")
        message = (f'Error: Export target "{target}" is not empty and does not hold an emulator export '
                   '(it contains "notes.txt"); refusing to replace it.')
    running = Suite(suite.binary, tmp_path, "--export-on-exit", "saved")
    try:
        status = running.process.wait(timeout=30)
    finally:
        if running.process.poll() is None:  # it started: the bug this test is about
            running.process.kill()
            running.process.wait()
    assert status == 1
    text = running.log.read_text()
    assert message in text
    assert READY not in text
    assert (target / "notes.txt" if kind != "file" else target).read_text() == "mine"


def test_an_import_with_a_bad_database_file_loads_nothing_and_names_the_file(suite, tmp_path):
    seed = Suite(suite.binary, tmp_path)
    seed.wait_ready()
    assert seed.put_doc("books/dune", {"title": {"stringValue": "Dune"}})[0] == 200
    assert seed.request("PUT", seed.rtdb_url("users/ada"), {"name": "Ada"})[0] == 200
    assert run_cli(suite.binary, "export", "backup", "--project", seed.project, cwd=tmp_path).returncode == 0
    seed.stop()
    bad = tmp_path / "backup/database_export/demo-snapshots-default-rtdb.json"
    bad.write_text('{"users": {"ada": {"a.b": 1}}}')

    refused = Suite(suite.binary, tmp_path, "--import", "backup", "--data-dir", "live")
    try:
        assert refused.process.wait(timeout=30) == 1
    finally:
        if refused.process.poll() is None:
            refused.process.kill()
            refused.process.wait()
    text = refused.log.read_text()
    assert f'{bad}: at /users/ada/a.b: Invalid data; key "a.b" can\'t be empty or contain $ # [ ] / or .' in text
    assert "Imported" not in text and READY not in text

    # Nothing was journaled: the corrected snapshot imports into the same data directory.
    bad.write_text('{"users": {"ada": {"ab": 1}}}')
    fixed = Suite(suite.binary, tmp_path, "--import", "backup", "--data-dir", "live")
    try:
        text = fixed.wait_ready()
        assert "restored 0 entries and 0 journaled commits" in text
        assert "Not importing" not in text
        assert fixed.get_doc("books/dune")[1]["fields"]["title"] == {"stringValue": "Dune"}
        assert fixed.request("GET", fixed.rtdb_url("users/ada"))[1] == {"ab": 1}
    finally:
        assert fixed.stop() == 0


def test_a_corrupted_snapshot_is_refused_naming_the_file(suite, tmp_path):
    running = Suite(suite.binary, tmp_path)
    running.wait_ready()
    running.put_doc("colors/red", {"hex": {"stringValue": "#FF0000FF"}})
    assert run_cli(suite.binary, "export", "backup", "--project", running.project, cwd=tmp_path).returncode == 0
    running.stop()
    output = tmp_path / "backup/firestore_export/all_namespaces/all_kinds/output-0"
    data = bytearray(output.read_bytes())
    data[-1] ^= 0x40
    output.write_bytes(bytes(data))
    broken = Suite(suite.binary, tmp_path, "--import", "backup")
    assert broken.process.wait(timeout=30) == 1
    text = broken.log.read_text()
    assert "output-0 at offset" in text
    assert READY not in text


def test_a_missing_import_directory_fails_clearly(suite, tmp_path):
    broken = Suite(suite.binary, tmp_path, "--import", "nowhere")
    assert broken.process.wait(timeout=30) == 1
    assert f'Directory "{tmp_path}/nowhere" does not exist.' in broken.log.read_text()


def _masked_crc(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    crc ^= 0xFFFFFFFF
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _leveldb_log(records: list[bytes]) -> bytes:
    """The LevelDB log format, written independently of the Swift code (records < 32 KiB)."""
    out = bytearray()
    for record in records:
        left = 32768 - len(out) % 32768
        if left < 7 + len(record):
            raise ValueError("fixture records must fit one block")
        out += struct.pack("<IHB", _masked_crc(bytes([1]) + record), len(record), 1) + record
    return bytes(out)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, wire: int, payload: bytes) -> bytes:
    if wire == 2:
        return _varint(number << 3 | 2) + _varint(len(payload)) + payload
    return _varint(number << 3 | wire) + payload


def _entity(project: str, path: list[tuple[str, str]], properties: list[bytes]) -> bytes:
    elements = b"".join(
        _varint(1 << 3 | 3) + _field(2, 2, kind.encode()) + _field(4, 2, name.encode()) + _varint(1 << 3 | 4)
        for kind, name in path)
    key = _field(13, 2, f"dev~{project}".encode()) + _field(14, 2, elements)
    return _field(13, 2, key) + b"".join(properties) + _field(16, 2, elements[: len(elements)])


def _string_property(name: str, value: str) -> bytes:
    prop = _field(3, 2, name.encode()) + _field(4, 0, b"\x00") + _field(5, 2, _field(3, 2, value.encode()))
    return _field(15, 2, prop)


def _int_property(name: str, value: int) -> bytes:
    prop = _field(3, 2, name.encode()) + _field(4, 0, b"\x00") + _field(5, 2, _field(1, 0, _varint(value)))
    return _field(15, 2, prop)


def test_an_official_layout_export_written_by_another_tool_imports(suite, tmp_path):
    """A firestore_export built byte by byte here (as the official emulator lays it out) plus a
    database_export/<ns>.json with .priority/.value, as `firebase emulators:export` writes them."""
    base = tmp_path / "official"
    kind_dir = base / "firestore_export/all_namespaces/all_kinds"
    kind_dir.mkdir(parents=True)
    entity = _entity("some-other-project", [("books", "hitchhiker")],
                     [_int_property("numberOfPages", 816), _string_property("title", "The Hitchhiker's Guide to the Galaxy")])
    (kind_dir / "output-0").write_bytes(_leveldb_log([entity]))
    kind_metadata = _field(1, 2, _field(1, 2, b"firestore_export")) + _field(2, 2, _field(1, 2, b"") + _field(2, 2, b"output-0"))
    (kind_dir / "all_namespaces_all_kinds.export_metadata").write_bytes(kind_metadata)
    pointer = (_field(1, 2, _field(1, 0, b"\x02") + _field(3, 0, b"\x03"))
               + _field(2, 2, b"all_namespaces/all_kinds/all_namespaces_all_kinds.export_metadata")
               + _field(3, 0, _varint(1)) + _field(4, 0, _varint(len(entity))))
    (base / "firestore_export/firestore_export.overall_export_metadata").write_bytes(_leveldb_log([b"\x33", pointer]))
    (base / "database_export").mkdir()
    (base / "database_export/demo-snapshots-default-rtdb.json").write_text(
        json.dumps({"posts": {"p1": {"title": "Hello", ".priority": 1}, "starCount": {".value": 3, ".priority": "x"}}}))
    (base / "firebase-export-metadata.json").write_text(json.dumps({
        "version": "15.0.0",
        "firestore": {"version": "1.22.0", "path": "firestore_export",
                      "metadata_file": "firestore_export/firestore_export.overall_export_metadata"},
        "database": {"version": "4.11.2", "path": "database_export"},
    }, indent=2))
    running = Suite(suite.binary, tmp_path, "--import", "official")
    try:
        running.wait_ready()
        status, doc = running.get_doc("books/hitchhiker")
        assert status == 200
        assert doc["fields"] == {"numberOfPages": {"integerValue": "816"},
                                 "title": {"stringValue": "The Hitchhiker's Guide to the Galaxy"}}
        assert running.request("GET", running.rtdb_url("posts/p1/title"))[1] == "Hello"
        assert running.request("GET", running.rtdb_url("posts/starCount"))[1] == 3
    finally:
        running.stop()


@pytest.mark.parametrize("flags", [["--data-dir", "live"], ["--data-dir", "live", "--data-dir-no-fsync"]])
def test_live_data_directory_survives_kill_9_under_load(suite, tmp_path, flags):
    """Writers hammer both emulators; the process is killed with SIGKILL mid-load; every write
    that was acknowledged (a 200 came back) is present after a restart with the same --data-dir."""
    running = Suite(suite.binary, tmp_path, *flags)
    running.wait_ready()
    acknowledged: list[tuple[str, str]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(index: int):
        n = 0
        while not stop.is_set():
            key = f"w{index}-{n}"
            try:
                if n % 2:
                    status, _ = running.request("PUT", running.rtdb_url(f"load/{key}"), n)
                    kind = "rtdb"
                else:
                    status, _ = running.put_doc(f"load/{key}", {"n": {"integerValue": str(n)}})
                    kind = "firestore"
            except Exception:
                return  # the process is gone
            if status == 200:
                with lock:
                    acknowledged.append((kind, key))
            n += 1

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    running.process.send_signal(signal.SIGKILL)
    running.process.wait(timeout=10)
    stop.set()
    for thread in threads:
        thread.join(timeout=20)
    assert len(acknowledged) > 50

    assert_acknowledged_writes_survive(suite, tmp_path, acknowledged)


def _journal_record_end(data: bytes) -> tuple[int, int]:
    """The start and end of the last complete record of a (small) journal: LevelDB log fragments
    (4-byte CRC, 2-byte length, type), stopping at the zero tail."""
    position, last = 0, (0, 0)
    while position + 7 <= len(data):
        if 32768 - position % 32768 < 7:
            position += 32768 - position % 32768
            continue
        if not any(data[position:position + 7]):
            break
        length = struct.unpack_from("<H", data, position + 4)[0]
        last = (position, position + 7 + length)
        position = last[1]
    return last


def test_live_data_directory_restarts_after_a_kill_during_the_start_after_a_kill(suite, tmp_path):
    """kill -9 cuts an append short (torn record in journal k); the restart creates journal k+1 and
    is killed before its checkpoint (k+1 stays empty). The next start restores every
    acknowledged write and keeps working; a record after the torn one is refused."""
    first = Suite(suite.binary, tmp_path, "--data-dir", "live")
    first.wait_ready()
    for name in ("ada", "grace", "linus"):
        assert first.request("PUT", first.rtdb_url(f"users/{name}"), {"name": name})[0] == 200
    first.stop(signal.SIGKILL)
    live = tmp_path / "live"
    journal = sorted(live.glob("journal-*.log"))[-1]
    data = bytearray(journal.read_bytes())
    start, end = _journal_record_end(data)
    assert end > 0
    torn = data[start:end - 4]  # the same record again, cut short
    data[end:end + len(torn)] = torn
    journal.write_bytes(bytes(data))
    later = live / f"journal-{int(journal.stem.split('-')[1]) + 1:08d}.log"
    later.write_bytes(b"")

    second = Suite(suite.binary, tmp_path, "--data-dir", "live")
    try:
        second.wait_ready()
        assert set(second.request("GET", second.rtdb_url("users"))[1]) == {"ada", "grace", "linus"}
        assert second.request("PUT", second.rtdb_url("users/ken"), {"name": "ken"})[0] == 200
    finally:
        second.stop(signal.SIGKILL)
    third = Suite(suite.binary, tmp_path, "--data-dir", "live")
    try:
        third.wait_ready()
        assert set(third.request("GET", third.rtdb_url("users"))[1]) == {"ada", "grace", "linus", "ken"}
        assert third.request("PUT", third.rtdb_url("users/rob"), {"name": "rob"})[0] == 200
    finally:
        assert third.stop() == 0

    # Damage: a torn record followed by a record in a later journal.
    journal = sorted(live.glob("journal-*.log"))[-1]
    data = bytearray(journal.read_bytes())
    start, end = _journal_record_end(data)
    data = data[:end] + data[start:end - 4]
    journal.write_bytes(bytes(data))
    later = live / f"journal-{int(journal.stem.split('-')[1]) + 1:08d}.log"
    later.write_bytes(bytes(journal.read_bytes()[:end]))
    result = run_cli(suite.binary, "start", "--project", "demo-snapshots", "--data-dir", "live", cwd=tmp_path, timeout=30)
    assert result.returncode == 1, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert f"{journal.name} at offset {end}" in output, output
    assert later.name in output, output


def test_live_data_directory_keeps_grpc_and_websocket_acks_after_kill_9(suite, tmp_path):
    """The same over the official Firestore client (gRPC Commit) and RTDB WebSocket puts: every
    write acknowledged before SIGKILL (a Commit response, an `ok`) is present after a restart."""
    from google.cloud import firestore
    from test_database_websocket import WireClient

    running = Suite(suite.binary, tmp_path, "--data-dir", "live")
    running.wait_ready()
    namespace = f"{running.project}-default-rtdb"
    acknowledged: list[tuple[str, str]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def grpc_writer(index: int):
        client = firestore.Client(project=running.project)
        n = 0
        while not stop.is_set():
            key = f"g{index}-{n}"
            try:
                client.collection("load").document(key).set({"n": n}, timeout=5, retry=None)
            except Exception:
                return  # the process is gone
            with lock:
                acknowledged.append(("firestore", key))
            n += 1

    def ws_writer(index: int):
        try:
            client = WireClient("127.0.0.1", running.database, namespace)
            client.message()  # hello
        except Exception:
            return
        n = 0
        while not stop.is_set():
            key = f"s{index}-{n}"
            try:
                r = client.request("p", {"p": f"/load/{key}", "d": n})
                _, body = client.reply(r)
            except Exception:
                return
            if body.get("s") == "ok":
                with lock:
                    acknowledged.append(("rtdb", key))
            n += 1

    saved = os.environ.get("FIRESTORE_EMULATOR_HOST")
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{running.firestore}"
    threads = [threading.Thread(target=grpc_writer, args=(i,)) for i in range(3)]
    threads += [threading.Thread(target=ws_writer, args=(i,)) for i in range(3)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(2.0)
        running.process.send_signal(signal.SIGKILL)
        running.process.wait(timeout=10)
        stop.set()
        for thread in threads:
            thread.join(timeout=20)
    finally:
        if saved is not None:
            os.environ["FIRESTORE_EMULATOR_HOST"] = saved
    assert sum(1 for kind, _ in acknowledged if kind == "firestore") > 20
    assert sum(1 for kind, _ in acknowledged if kind == "rtdb") > 20

    assert_acknowledged_writes_survive(suite, tmp_path, acknowledged)


def test_export_refuses_the_current_directory_and_its_parents(suite, tmp_path):
    (tmp_path / "tmp").mkdir(exist_ok=True)
    (tmp_path / "keep.txt").write_text("mine")
    for target in [".", ".."]:
        result = run_cli(suite.binary, "export", target, "--project", suite.project, cwd=tmp_path)
        assert result.returncode == 1
        assert "must not be the current directory or one of its parents" in result.stderr
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_export_refuses_a_directory_that_is_not_an_export(suite, tmp_path):
    target = tmp_path / "project"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    env = {"TMPDIR": os.environ["TMPDIR"]}
    result = run_cli(suite.binary, "export", str(target), "--force", "--project", suite.project, cwd=tmp_path, env=env)
    assert result.returncode == 1
    assert (target / "notes.txt").read_text() == "mine"


def test_exec_exports_on_exit_after_the_script(suite, tmp_path):
    firestore, database, hub = free_ports(3)
    (tmp_path / "firebase.json").write_text(json.dumps({"database": {}, "firestore": {}, "emulators": {
        "firestore": {"port": firestore}, "database": {"port": database}, "hub": {"port": hub}}}))
    (tmp_path / "tmp").mkdir(exist_ok=True)
    script = f"curl -s -X PUT 'http://127.0.0.1:{database}/seed.json?ns=demo-exec-default-rtdb' -d 42"
    result = run_cli(suite.binary, "exec", "--project", "demo-exec", "--export-on-exit", "after", script, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "after/database_export/demo-exec-default-rtdb.json").read_text()) == {"seed": 42}


def test_the_committed_example_snapshot_imports(suite, tmp_path):
    """`emulator-data/` (the README's quick start) still imports: a Firestore document and an
    RTDB path from it read back. A copy, so the repository's files are never touched."""
    import shutil

    shutil.copytree(Path(__file__).resolve().parents[3] / "emulator-data", tmp_path / "data")
    running = Suite(suite.binary, tmp_path, "--import", "data", project="demo-emulators")
    try:
        running.wait_ready()
        status, doc = running.get_doc("books/hitchhiker")
        assert status == 200
        assert doc["fields"]["title"] == {"stringValue": "The Hitchhiker's Guide to the Galaxy"}
        assert doc["fields"]["numberOfPages"] == {"integerValue": "816"}
        assert running.request("GET", running.rtdb_url("posts/-NkFirstPost0000000/author"))[1] == "ada"
    finally:
        assert running.stop() == 0
