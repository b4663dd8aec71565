"""google-cloud-firestore (gRPC over h2c) against the suite's Firestore port.

The client reads FIRESTORE_EMULATOR_HOST (set by the conftest) and talks gRPC with
`authorization: Bearer owner`; REST and gRPC share the port and the data.
"""

import threading
import time
import uuid

import pytest
import requests
from google.api_core import exceptions as gexc
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter


@pytest.fixture(scope="module")
def client(suite):
    return firestore.Client(project=suite.project)


@pytest.fixture
def col(client):
    return client.collection(f"grpc-{uuid.uuid4().hex[:10]}")


def test_set_get_update_delete(col):
    ref = col.document("sf")
    ref.set({"name": "San Francisco", "pop": 870000, "tags": ["west"], "geo": firestore.GeoPoint(37.7, -122.4),
             "blob": b"\x00\x01", "nested": {"a": {"b": 1.5}}, "none": None, "ok": True})
    snap = ref.get()
    assert snap.exists
    data = snap.to_dict()
    assert data["name"] == "San Francisco" and data["pop"] == 870000 and data["blob"] == b"\x00\x01"
    assert data["geo"] == firestore.GeoPoint(37.7, -122.4) and data["nested"] == {"a": {"b": 1.5}}
    assert data["none"] is None and data["ok"] is True
    assert snap.create_time is not None and snap.update_time >= snap.create_time

    ref.update({"pop": 1, "nested.a.c": "x"})
    assert ref.get().to_dict()["nested"] == {"a": {"b": 1.5, "c": "x"}}
    ref.set({"extra": 1}, merge=True)
    assert ref.get().to_dict()["extra"] == 1 and ref.get().to_dict()["pop"] == 1

    ref.delete()
    assert not ref.get().exists


def test_update_missing_document_is_not_found(col):
    with pytest.raises(gexc.NotFound):
        col.document("missing").update({"a": 1})


def test_create_existing_document_is_already_exists(col):
    col.document("x").create({"a": 1})
    with pytest.raises(gexc.AlreadyExists):
        col.document("x").create({"a": 2})


def test_add_assigns_twenty_character_ids(col):
    _, ref = col.add({"n": 1})
    assert len(ref.id) == 20 and ref.id.isalnum()
    assert ref.get().to_dict() == {"n": 1}


def test_batch_writes_atomically(client, col):
    batch = client.batch()
    for i in range(5):
        batch.set(col.document(f"d{i}"), {"i": i})
    batch.delete(col.document("d0"))
    results = batch.commit()
    assert len(results) == 6
    assert sorted(d.id for d in col.stream()) == ["d1", "d2", "d3", "d4"]


def test_get_all_reports_missing(client, col):
    col.document("a").set({"v": 1})
    snaps = {s.id: s for s in client.get_all([col.document("a"), col.document("b")])}
    assert snaps["a"].exists and snaps["a"].to_dict() == {"v": 1}
    assert not snaps["b"].exists


def test_transaction_reads_and_writes(client, col):
    ref = col.document("counter")
    ref.set({"n": 0})

    @firestore.transactional
    def bump(transaction):
        snap = ref.get(transaction=transaction)
        transaction.update(ref, {"n": snap.get("n") + 1})

    for _ in range(3):
        bump(client.transaction())
    assert ref.get().to_dict() == {"n": 3}


def test_transactions_retry_on_contention(suite, col):
    ref = col.document("contended")
    ref.set({"n": 0})
    errors = []

    def worker():
        c = firestore.Client(project=suite.project)
        r = c.collection(col.id).document("contended")

        @firestore.transactional
        def bump(transaction):
            snap = r.get(transaction=transaction)
            time.sleep(0.01)
            transaction.update(r, {"n": snap.get("n") + 1})

        try:
            for _ in range(5):
                bump(c.transaction(max_attempts=50))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert ref.get().to_dict() == {"n": 20}


def test_transactions_as_production_runs_them(suite, col):
    """Four threads, five `@transactional` increments each, the client's default five attempts.

    Read-write transactions lock what they read; a conflicting commit waits, and the younger of
    two contending transactions is aborted (wound-wait) and retried by the client, so every
    increment lands quickly and no attempt budget runs out.
    """
    ref = col.document("counter")
    ref.set({"n": 0})
    errors = []

    def worker():
        c = firestore.Client(project=suite.project)
        r = c.collection(col.id).document("counter")

        @firestore.transactional
        def bump(transaction):
            snap = r.get(transaction=transaction)
            transaction.update(r, {"n": snap.get("n") + 1})

        try:
            for _ in range(5):
                bump(c.transaction())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    print(f"\n4 threads x 5 transactional increments: {elapsed * 1000:.0f} ms")
    assert errors == []
    assert ref.get().to_dict() == {"n": 20}
    assert elapsed < 10


def test_write_waits_for_a_transaction_lock(client, col):
    """A plain write to a document a transaction read waits until the transaction commits."""
    ref = col.document("held")
    ref.set({"n": 1})
    transaction = client.transaction()
    transaction._begin()
    assert list(transaction.get(ref))[0].get("n") == 1
    done = []

    def write():
        col.document("held").set({"n": 100})
        done.append(time.monotonic())

    writer = threading.Thread(target=write)
    writer.start()
    time.sleep(0.3)
    assert done == []  # still waiting for the lock
    transaction.update(ref, {"n": 2})
    transaction._commit()
    writer.join(timeout=10)
    assert done != []
    assert ref.get().to_dict() == {"n": 100}  # applied after the transaction


def test_a_waiting_commit_whose_call_is_cancelled_leaves_no_lock(client, col):
    """A plain commit parks behind a transaction's lock and its deadline passes: the client resets
    the call, the wait is withdrawn (a younger reader is not queued behind it), nothing lands."""
    ref = col.document("held")
    ref.set({"n": 1})
    older = client.transaction()
    older._begin()
    assert list(older.get(ref))[0].get("n") == 1
    batch = client.batch()
    batch.set(ref, {"n": 99})
    with pytest.raises(gexc.DeadlineExceeded):
        client._firestore_api.commit(
            request={"database": client._database_string, "writes": batch._write_pbs}, timeout=0.3, retry=None)
    time.sleep(0.1)
    younger = client.transaction()
    younger._begin()
    started = time.monotonic()
    assert list(younger.get(ref))[0].get("n") == 1
    assert time.monotonic() - started < 2
    older._rollback()
    younger._rollback()
    assert ref.get().to_dict() == {"n": 1}


def test_rollback_after_the_transaction_ended_is_ok(client, col):
    ref = col.document("r")
    transaction = client.transaction()
    transaction._begin()
    transaction.set(ref, {"a": 1})
    tid = transaction._id
    transaction._commit()
    # What the client does after an ABORTED commit: roll the ended transaction back.
    client._firestore_api.rollback(request={"database": client._database_string, "transaction": tid})
    with pytest.raises(gexc.InvalidArgument):
        client._firestore_api.rollback(request={"database": client._database_string, "transaction": b"unknown-id"})


def test_queries_where_order_limit_cursors(col):
    for i, (name, state) in enumerate([("a", "CA"), ("b", "WA"), ("c", "CA"), ("d", "NY"), ("e", "CA")]):
        col.document(name).set({"i": i, "state": state, "tags": [state, "x"]})
    ca = col.where(filter=FieldFilter("state", "==", "CA")).order_by("i", direction=firestore.Query.DESCENDING)
    assert [d.id for d in ca.stream()] == ["e", "c", "a"]
    assert [d.id for d in ca.limit(2).stream()] == ["e", "c"]
    assert [d.id for d in col.order_by("i").start_after({"i": 1}).end_at({"i": 3}).stream()] == ["c", "d"]
    assert [d.id for d in col.where(filter=FieldFilter("state", "in", ["WA", "NY"])).stream()] == ["b", "d"]
    assert [d.id for d in col.where(filter=FieldFilter("tags", "array_contains", "NY")).stream()] == ["d"]
    assert [d.id for d in col.order_by("i").limit_to_last(2).get()] == ["d", "e"]
    assert [d.id for d in col.order_by("i").offset(3).stream()] == ["d", "e"]
    assert [d.to_dict() for d in col.select(["state"]).where(filter=FieldFilter("i", "==", 1)).stream()] == [{"state": "WA"}]


def test_collection_group_and_count(client, col):
    group = f"grp{uuid.uuid4().hex[:8]}"
    col.document("p1").collection(group).document("c1").set({"v": 1})
    col.document("p2").collection(group).document("c2").set({"v": 2})
    assert sorted(d.id for d in client.collection_group(group).stream()) == ["c1", "c2"]
    result = client.collection_group(group).count(alias="n").get()
    assert result[0][0].alias == "n" and result[0][0].value == 2
    sums = client.collection_group(group).sum("v").get()
    assert sums[0][0].value == 3


def test_list_collections_and_documents(col):
    col.document("p").collection("kids").document("k").set({})
    col.document("q").set({"a": 1})
    assert [c.id for c in col.document("p").collections()] == ["kids"]
    listed = sorted(d.id for d in col.list_documents())
    assert listed == ["p", "q"]


def test_field_transforms(col):
    ref = col.document("t")
    ref.set({"n": 1, "arr": [1, 2], "when": None})
    ref.update({"n": firestore.Increment(41), "arr": firestore.ArrayUnion([2, 3]), "when": firestore.SERVER_TIMESTAMP})
    data = ref.get().to_dict()
    assert data["n"] == 42 and data["arr"] == [1, 2, 3] and data["when"] is not None
    ref.update({"arr": firestore.ArrayRemove([1])})
    assert ref.get().to_dict()["arr"] == [2, 3]


def test_rest_and_grpc_share_data(suite, col):
    col.document("shared").set({"via": "grpc"})
    url = f"http://{suite.firestore}/v1/projects/{suite.project}/databases/(default)/documents/{col.id}/shared"
    answer = requests.get(url, headers={"Authorization": "Bearer owner"}, timeout=10)
    assert answer.status_code == 200
    assert answer.json()["fields"]["via"] == {"stringValue": "grpc"}


def _collect(query_or_ref):
    events = []
    changed = threading.Condition()

    def callback(snapshots, changes, read_time):
        with changed:
            events.append([(c.type.name, c.document.id) for c in changes] if changes is not None else snapshots)
            changed.notify_all()

    watch = query_or_ref.on_snapshot(callback)

    def wait_for(count):
        with changed:
            assert changed.wait_for(lambda: len(events) >= count, timeout=10), events
        return events

    return watch, wait_for


def test_on_snapshot_query_sees_adds_changes_and_removals(col):
    col.document("a").set({"n": 1})
    watch, wait_for = _collect(col.where(filter=FieldFilter("n", ">=", 1)))
    try:
        assert wait_for(1)[0] == [("ADDED", "a")]
        col.document("b").set({"n": 2})
        assert wait_for(2)[1] == [("ADDED", "b")]
        col.document("a").update({"n": 5})
        assert wait_for(3)[2] == [("MODIFIED", "a")]
        col.document("a").update({"n": 0})
        assert wait_for(4)[3] == [("REMOVED", "a")]
        col.document("b").delete()
        assert wait_for(5)[4] == [("REMOVED", "b")]
    finally:
        watch.unsubscribe()


def test_on_snapshot_document(col):
    ref = col.document("watched")
    seen = []
    done = threading.Event()

    def callback(snapshots, changes, read_time):
        seen.append([s.to_dict() if s.exists else None for s in snapshots])
        if len(seen) >= 3:
            done.set()

    watch = ref.on_snapshot(callback)
    try:
        time.sleep(0.3)
        ref.set({"v": 1})
        time.sleep(0.3)
        ref.delete()
        assert done.wait(10), seen
        assert seen[0] == [] and seen[1] == [{"v": 1}] and seen[2] == []
    finally:
        watch.unsubscribe()


def test_large_documents_cross_flow_control_windows(col):
    # ~900 KB each way: more than the 64 KiB default HTTP/2 windows, so both sides must send WINDOW_UPDATE.
    big = "x" * 900_000
    col.document("big").set({"text": big})
    assert col.document("big").get().to_dict()["text"] == big


def test_batch_of_five_hundred_writes(client, col):
    batch = client.batch()
    for i in range(500):
        batch.set(col.document(f"n{i:03d}"), {"i": i, "pad": "p" * 100})
    assert len(batch.commit()) == 500
    assert col.count().get()[0][0].value == 500


def test_bulk_writer_uses_batch_write(client, col):
    writer = client.bulk_writer()
    for i in range(30):
        writer.set(col.document(f"b{i}"), {"i": i})
    writer.close()
    assert col.count().get()[0][0].value == 30


def test_firebase_admin_firestore_uses_the_same_emulator(suite, col):
    import firebase_admin
    from firebase_admin import credentials
    from firebase_admin import firestore as admin_firestore
    from google.auth.credentials import AnonymousCredentials

    class Anonymous(credentials.Base):
        def get_credential(self):
            return AnonymousCredentials()

    app = firebase_admin.initialize_app(Anonymous(), options={"projectId": suite.project}, name="grpc-admin")
    try:
        admin = admin_firestore.client(app)
        admin.collection(col.id).document("from-admin").set({"ok": True})
        assert col.document("from-admin").get().to_dict() == {"ok": True}
    finally:
        firebase_admin.delete_app(app)


def test_unknown_grpc_method_is_unimplemented_over_curl(suite):
    import shutil
    import subprocess

    curl = shutil.which("curl")
    if curl is None or b"HTTP2" not in subprocess.run([curl, "--version"], capture_output=True).stdout:
        pytest.skip("no curl with HTTP/2")
    result = subprocess.run(
        [curl, "-s", "-D", "-", "-o", "/dev/null", "--http2-prior-knowledge", "-H", "content-type: application/grpc",
         "-H", "te: trailers", "--data-binary", "@-", f"http://{suite.firestore}/google.firestore.v1.Firestore/Nope"],
        input=b"\x00\x00\x00\x00\x00", capture_output=True, timeout=10,
    )
    assert result.returncode == 0, result.stderr
    assert b"HTTP/2 200" in result.stdout
    assert b"grpc-status: 12" in result.stdout
    assert b"Method not found: google.firestore.v1.Firestore/Nope" in result.stdout


def test_grpc_errors_carry_official_messages(col):
    with pytest.raises(gexc.NotFound) as failure:
        col.document("gone").update({"a": 1})
    assert "No document to update" in failure.value.message


def _field(number, payload):
    """A length-delimited protobuf field (numbers and lengths below 2**14 here)."""
    if isinstance(payload, str):
        payload = payload.encode()

    def varint(n):
        return bytes([n]) if n < 0x80 else bytes([n & 0x7F | 0x80, n >> 7])

    return varint(number << 3 | 2) + varint(len(payload)) + payload


def test_a_slow_listen_reader_gets_every_document_without_a_reset(suite, client, col):
    # A raw Listen on a collection whose client reads slowly while 6,000 documents of 8 KB
    # (48 MB) are written: the commits wait while the client is behind and go out folded, a
    # commit at a time as it catches up. Before, every change queued on the stream until 32 MiB,
    # then it was reset with ENHANCE_YOUR_CALM (the client saw RESOURCE_EXHAUSTED).
    import grpc

    database = f"projects/{suite.project}/databases/(default)"
    query = _field(1, database + "/documents") + _field(2, _field(2, _field(2, col.id)))
    request = _field(1, database) + _field(2, _field(2, query) + bytes([5 << 3, 1]))
    channel = grpc.insecure_channel(suite.firestore)
    call = channel.stream_stream("/google.firestore.v1.Firestore/Listen",
                                 request_serializer=lambda b: b, response_deserializer=lambda b: b)
    stop = threading.Event()

    def requests_():
        yield request
        stop.wait(120)

    marker = f"documents/{col.id}/d".encode()
    names, failure = set(), []

    def read():
        try:
            for message in call(requests_(), metadata=[("authorization", "Bearer owner")]):
                if message[:1] == b"\x1a" and (i := message.find(marker)) >= 0:
                    names.add(message[i:i + len(marker) + 5])
                time.sleep(0.001)
                if len(names) == 6000:
                    return
        except grpc.RpcError as e:
            failure.append((e.code(), e.details()))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        time.sleep(0.5)
        for start in range(0, 6000, 500):
            batch = client.batch()
            for i in range(start, start + 500):
                batch.set(col.document(f"d{i:05d}"), {"i": i, "pad": "x" * 8000})
            batch.commit()
        reader.join(120)
        assert not failure, failure
        assert len(names) == 6000
    finally:
        stop.set()
        channel.close()
