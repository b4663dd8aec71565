"""Firestore REST: the exact JSON shapes the JS Lite SDK, the Node Admin SDK (preferRest) and the
REST reference send, over a real socket to the running suite."""

import base64
import concurrent.futures
import uuid

import pytest
import requests

# Headers the JS Lite SDK sends with every REST call: the body is JSON but typed text/plain.
LITE_HEADERS = {
    "Content-Type": "text/plain",
    "X-Goog-Api-Client": "gl-js/ fire/10.0.0",
}


@pytest.fixture
def fs(suite):
    """Base URL, database and document-root names for a fresh, uniquely named database."""
    database = f"interop-{uuid.uuid4().hex[:8]}"
    db = f"projects/{suite.project}/databases/{database}"
    base = f"http://{suite.firestore}/v1/{db}/documents"
    headers = dict(LITE_HEADERS)
    headers["google-cloud-resource-prefix"] = db
    headers["x-goog-request-params"] = f"project_id={suite.project}&database_id={database}"
    return {"base": base, "db": db, "root": f"{db}/documents", "headers": headers, "suite": suite, "database": database}


def post(fs, method, body, parent=""):
    return requests.post(f"{fs['base']}{parent}:{method}", json=None, data=_json(body), headers=fs["headers"], timeout=10)


def _json(body):
    import json

    return json.dumps(body)


def commit(fs, writes, **extra):
    body = {"writes": writes}
    body.update(extra)
    return post(fs, "commit", body)


def update(fs, path, fields, **extra):
    write = {"update": {"name": f"{fs['root']}/{path}", "fields": fields}}
    write.update(extra)
    return write


def test_lite_set_and_get_doc(fs):
    r = commit(fs, [update(fs, "cities/SF", {"name": {"stringValue": "San Francisco"}, "pop": {"integerValue": "870000"}})])
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["writeResults"]) == 1 and "updateTime" in body["writeResults"][0]
    assert body["commitTime"].endswith("Z")

    got = post(fs, "batchGet", {"documents": [f"{fs['root']}/cities/SF", f"{fs['root']}/cities/LA"]})
    assert got.status_code == 200
    items = got.json()
    assert isinstance(items, list) and len(items) == 2
    found = next(i for i in items if "found" in i)
    assert found["found"]["fields"]["pop"] == {"integerValue": "870000"}
    assert found["found"]["createTime"] == found["found"]["updateTime"]
    missing = next(i for i in items if "missing" in i)
    assert missing["missing"] == f"{fs['root']}/cities/LA"
    assert all("readTime" in i for i in items)


def test_lite_update_with_transforms_as_the_sdk_encodes_it(fs):
    commit(fs, [update(fs, "c/d", {"n": {"integerValue": "1"}, "tags": {"arrayValue": {"values": [{"stringValue": "a"}]}}})])
    r = commit(
        fs,
        [
            {
                "update": {"name": f"{fs['root']}/c/d", "fields": {"a": {"integerValue": "1"}}},
                "updateMask": {"fieldPaths": ["a"]},
                "currentDocument": {"exists": True},
                "updateTransforms": [
                    {"fieldPath": "b", "setToServerValue": "REQUEST_TIME"},
                    {"fieldPath": "n", "increment": {"integerValue": "2"}},
                    {"fieldPath": "tags", "appendMissingElements": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}},
                    {"fieldPath": "tags", "removeAllFromArray": {"values": [{"stringValue": "a"}]}},
                ],
            }
        ],
    )
    assert r.status_code == 200, r.text
    result = r.json()["writeResults"][0]
    assert result["transformResults"][0] == {"timestampValue": r.json()["commitTime"]}
    assert result["transformResults"][1] == {"integerValue": "3"}
    assert result["transformResults"][2] == {"nullValue": None}
    doc = requests.get(f"{fs['base']}/c/d", timeout=10).json()
    assert doc["fields"]["tags"] == {"arrayValue": {"values": [{"stringValue": "b"}]}}
    assert doc["fields"]["b"] == {"timestampValue": r.json()["commitTime"]}


def test_lite_update_of_missing_document_fails_with_official_text(fs):
    r = commit(fs, [update(fs, "c/none", {}, updateMask={"fieldPaths": []}, currentDocument={"exists": True})])
    assert r.status_code == 404
    error = r.json()["error"]
    assert error == {"code": 404, "message": f"No document to update: {fs['root']}/c/none", "status": "NOT_FOUND"}


def test_lite_query_with_filters_order_and_limit(fs):
    docs = [("a", "SF", 3), ("b", "LA", 5), ("c", "SF", 9), ("d", "SF", 1), ("e", "NY", 7)]
    commit(fs, [update(fs, f"cities/{i}", {"city": {"stringValue": c}, "score": {"integerValue": str(s)}}) for i, c, s in docs])
    query = {
        "structuredQuery": {
            "from": [{"collectionId": "cities"}],
            "where": {
                "compositeFilter": {
                    "op": "AND",
                    "filters": [
                        {"fieldFilter": {"field": {"fieldPath": "city"}, "op": "EQUAL", "value": {"stringValue": "SF"}}},
                        {"fieldFilter": {"field": {"fieldPath": "score"}, "op": "GREATER_THAN_OR_EQUAL", "value": {"integerValue": "2"}}},
                    ],
                }
            },
            "orderBy": [{"field": {"fieldPath": "score"}, "direction": "DESCENDING"}],
            "limit": 5,
        }
    }
    r = post(fs, "runQuery", query)
    assert r.status_code == 200, r.text
    results = r.json()
    assert [x["document"]["name"].rsplit("/", 1)[1] for x in results] == ["c", "a"]
    assert all("readTime" in x for x in results)

    # No results still answer one element with a read time.
    query["structuredQuery"]["limit"] = 0
    empty = post(fs, "runQuery", query).json()
    assert len(empty) == 1 and "readTime" in empty[0] and "document" not in empty[0]


def test_lite_subcollection_query_and_collection_group(fs):
    commit(
        fs,
        [
            update(fs, "rooms/r1/messages/m1", {"t": {"integerValue": "1"}}),
            update(fs, "rooms/r2/messages/m2", {"t": {"integerValue": "2"}}),
            update(fs, "messages/top", {"t": {"integerValue": "3"}}),
        ],
    )
    sub = post(fs, "runQuery", {"structuredQuery": {"from": [{"collectionId": "messages"}]}}, parent="/rooms/r1").json()
    assert [x["document"]["name"] for x in sub] == [f"{fs['root']}/rooms/r1/messages/m1"]
    group = post(
        fs,
        "runQuery",
        {"structuredQuery": {"from": [{"collectionId": "messages", "allDescendants": True}], "orderBy": [{"field": {"fieldPath": "t"}}]}},
    ).json()
    assert [x["document"]["name"].rsplit("/", 1)[1] for x in group] == ["m1", "m2", "top"]


def test_lite_count_sum_avg(fs):
    commit(fs, [update(fs, f"n/{i}", {"v": {"integerValue": str(i)}}) for i in range(1, 5)])
    r = post(
        fs,
        "runAggregationQuery",
        {
            "structuredAggregationQuery": {
                "aggregations": [
                    {"alias": "aggregate_0", "count": {}},
                    {"alias": "aggregate_1", "sum": {"field": {"fieldPath": "v"}}},
                    {"alias": "aggregate_2", "avg": {"field": {"fieldPath": "v"}}},
                ],
                "structuredQuery": {"from": [{"collectionId": "n"}]},
            }
        },
    )
    assert r.status_code == 200, r.text
    fields = r.json()[0]["result"]["aggregateFields"]
    assert fields == {
        "aggregate_0": {"integerValue": "4"},
        "aggregate_1": {"integerValue": "10"},
        "aggregate_2": {"doubleValue": 2.5},
    }


def test_lite_transaction_shape_verify_and_update_time_preconditions(fs):
    """The web SDKs read with batchGet, then commit with updateTime preconditions and verify writes."""
    first = commit(fs, [update(fs, "acct/a", {"n": {"integerValue": "1"}}), update(fs, "acct/b", {"n": {"integerValue": "1"}})])
    read = post(fs, "batchGet", {"documents": [f"{fs['root']}/acct/a", f"{fs['root']}/acct/b"]}).json()
    times = {x["found"]["name"].rsplit("/", 1)[1]: x["found"]["updateTime"] for x in read}
    writes = [
        update(fs, "acct/a", {"n": {"integerValue": "2"}}, currentDocument={"updateTime": times["a"]}),
        {"verify": f"{fs['root']}/acct/b", "currentDocument": {"updateTime": times["b"]}},
    ]
    assert commit(fs, writes).status_code == 200
    # Replaying the same preconditions now fails: the document moved on.
    stale = commit(fs, writes)
    assert stale.status_code == 400
    assert stale.json()["error"]["status"] == "FAILED_PRECONDITION"
    assert first.status_code == 200


def test_rest_transactions_conflict_answers_aborted_and_contention_settles(fs):
    commit(fs, [update(fs, "ctr/x", {"n": {"integerValue": "0"}})])
    name = f"{fs['root']}/ctr/x"

    def increment(_):
        for _attempt in range(100):
            t = post(fs, "beginTransaction", {}).json()["transaction"]
            got = post(fs, "batchGet", {"documents": [name], "transaction": t}).json()
            n = int(got[0]["found"]["fields"]["n"]["integerValue"])
            r = commit(fs, [update(fs, "ctr/x", {"n": {"integerValue": str(n + 1)}})], transaction=t)
            if r.status_code == 200:
                return True
            assert r.json()["error"]["status"] == "ABORTED"
        return False

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        assert all(pool.map(increment, range(16)))
    final = requests.get(f"{fs['base']}/ctr/x", timeout=10).json()
    assert final["fields"]["n"] == {"integerValue": "16"}


def test_a_waiting_write_whose_connection_closes_leaves_no_lock(fs):
    """A plain write parks behind a transaction's lock; its client hangs up. The wait is withdrawn:
    a younger transaction's read is not queued behind it, and the write never lands."""
    import socket
    import struct
    import time
    from urllib.parse import urlparse

    commit(fs, [update(fs, "acct/a", {"n": {"integerValue": "1"}})])
    name = f"{fs['root']}/acct/a"
    older = post(fs, "beginTransaction", {}).json()["transaction"]
    assert post(fs, "batchGet", {"documents": [name], "transaction": older}).status_code == 200

    url = urlparse(f"{fs['base']}:commit")
    body = _json({"writes": [update(fs, "acct/a", {"n": {"integerValue": "99"}})]}).encode()
    raw = socket.create_connection((url.hostname, url.port))
    raw.sendall(
        f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    )
    raw.settimeout(0.3)
    with pytest.raises(socket.timeout):
        raw.recv(1)  # parked behind the transaction's lock
    # The client dies: the connection resets (a client that only half-closes still gets its answer).
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    raw.close()
    time.sleep(0.1)

    # Had the dead write stayed queued (it is older), this read would wait 30 s behind it.
    younger = post(fs, "beginTransaction", {}).json()["transaction"]
    started = time.monotonic()
    assert post(fs, "batchGet", {"documents": [name], "transaction": younger}).status_code == 200
    assert time.monotonic() - started < 2
    for t in (older, younger):
        assert post(fs, "rollback", {"transaction": t}).status_code == 200
    got = requests.get(f"{fs['base']}/acct/a", timeout=10).json()
    assert got["fields"]["n"] == {"integerValue": "1"}


def test_run_query_in_new_transaction_and_read_time(fs):
    first = commit(fs, [update(fs, "p/a", {"v": {"integerValue": "1"}})]).json()["commitTime"]
    commit(fs, [update(fs, "p/a", {"v": {"integerValue": "2"}}), update(fs, "p/b", {})])
    past = post(fs, "runQuery", {"structuredQuery": {"from": [{"collectionId": "p"}]}, "readTime": first}).json()
    assert [x["document"]["fields"]["v"]["integerValue"] for x in past] == ["1"]
    fresh = post(fs, "runQuery", {"structuredQuery": {"from": [{"collectionId": "p"}]}, "newTransaction": {"readOnly": {}}}).json()
    assert "transaction" in fresh[0] and base64.b64decode(fresh[0]["transaction"])
    assert len([x for x in fresh if "document" in x]) == 2


def test_rest_reference_document_methods(fs):
    create = requests.post(
        f"{fs['base']}/people?documentId=ada&mask.fieldPaths=name",
        json={"fields": {"name": {"stringValue": "Ada"}, "born": {"integerValue": "1815"}}},
        timeout=10,
    )
    assert create.status_code == 200, create.text
    assert create.json()["fields"] == {"name": {"stringValue": "Ada"}}
    again = requests.post(f"{fs['base']}/people?documentId=ada", json={"fields": {}}, timeout=10)
    assert again.status_code == 409 and again.json()["error"]["status"] == "ALREADY_EXISTS"

    patch = requests.patch(
        f"{fs['base']}/people/ada?updateMask.fieldPaths=born&updateMask.fieldPaths=gone&currentDocument.exists=true",
        json={"fields": {"born": {"integerValue": "1816"}}},
        timeout=10,
    )
    assert patch.status_code == 200
    assert patch.json()["fields"] == {"born": {"integerValue": "1816"}, "name": {"stringValue": "Ada"}}

    auto = requests.post(f"{fs['base']}/people", json={"fields": {}}, timeout=10).json()
    assert len(auto["name"].rsplit("/", 1)[1]) == 20

    page = requests.get(f"{fs['base']}/people?pageSize=1", timeout=10).json()
    assert len(page["documents"]) == 1 and page["nextPageToken"]
    rest = requests.get(f"{fs['base']}/people", params={"pageSize": 1, "pageToken": page["nextPageToken"]}, timeout=10).json()
    assert len(rest["documents"]) == 1 and "nextPageToken" not in rest

    # With rules in force only the owner may list collection ids (rules cannot grant it).
    denied = requests.post(f"{fs['base']}:listCollectionIds", json={}, timeout=10)
    assert denied.status_code == 403 and denied.json()["error"]["status"] == "PERMISSION_DENIED"
    owner = {"Authorization": "Bearer owner"}
    ids = requests.post(f"{fs['base']}:listCollectionIds", json={}, headers=owner, timeout=10).json()
    assert ids["collectionIds"] == ["people"]

    delete = requests.delete(f"{fs['base']}/people/ada?currentDocument.exists=true", timeout=10)
    assert delete.status_code == 200 and delete.json() == {}
    gone = requests.get(f"{fs['base']}/people/ada", timeout=10)
    assert gone.status_code == 404 and gone.json()["error"]["status"] == "NOT_FOUND"


def test_value_json_round_trip(fs):
    fields = {
        "i": {"integerValue": "-9223372036854775808"},
        "nan": {"doubleValue": "NaN"},
        "inf": {"doubleValue": "-Infinity"},
        "negz": {"doubleValue": "-0"},
        "n": {"nullValue": "NULL_VALUE"},
        "b": {"bytesValue": "3q2+7w=="},
        "t": {"timestampValue": "2024-01-02T03:04:05.123456Z"},
        "g": {"geoPointValue": {"latitude": 45.5, "longitude": -122.25}},
        "r": {"referenceValue": f"{fs['root']}/x/y"},
        "m": {"mapValue": {"fields": {"z": {"booleanValue": False}, "a": {"stringValue": ""}}}},
        "e": {"arrayValue": {}},
    }
    assert commit(fs, [update(fs, "v/all", fields)]).status_code == 200
    got = requests.get(f"{fs['base']}/v/all", timeout=10).json()["fields"]
    assert got["i"] == {"integerValue": "-9223372036854775808"}
    assert got["nan"] == {"doubleValue": "NaN"}
    assert got["inf"] == {"doubleValue": "-Infinity"}
    assert got["negz"] == {"doubleValue": "-0"}
    assert got["n"] == {"nullValue": None}
    assert got["b"] == {"bytesValue": "3q2+7w=="}
    assert got["t"] == {"timestampValue": "2024-01-02T03:04:05.123456Z"}
    assert got["g"] == {"geoPointValue": {"latitude": 45.5, "longitude": -122.25}}
    assert list(got["m"]["mapValue"]["fields"]) == ["a", "z"]
    assert got["e"] == {"arrayValue": {}}


def test_bad_input_answers_official_error_json(fs):
    bad = requests.post(f"{fs['base']}:commit", data="{not json", headers=fs["headers"], timeout=10)
    assert bad.status_code == 400
    assert bad.json()["error"]["status"] == "INVALID_ARGUMENT"
    too_many = commit(fs, [update(fs, f"bulk/{i}", {}) for i in range(501)])
    assert too_many.status_code == 400
    assert "maximum 500 writes allowed per request" in too_many.json()["error"]["message"]
    nothing = post(fs, "runQuery", {"structuredQuery": {"from": [{"collectionId": "bulk"}]}}).json()
    assert len(nothing) == 1 and "document" not in nothing[0]


def test_unknown_members_are_rejected_like_production(fs):
    # Production's answer to a PATCH whose body carried `currentDocument` (quoted in
    # samuelgozi/firebase-firestore-lite#23); nothing is written.
    patch = requests.patch(f"{fs['base']}/strict/d", data=_json({"fields": {}, "currentDocument": {"exists": True}}),
                           headers=fs["headers"], timeout=10)
    assert patch.status_code == 400
    assert patch.json()["error"] == {
        "code": 400, "status": "INVALID_ARGUMENT",
        "message": "Invalid JSON payload received. Unknown name \"currentDocument\" at 'document': Cannot find field."}
    nested = commit(fs, [{"update": {"name": f"{fs['root']}/strict/d", "fields": {"a": {"intValue": "1"}}}}])
    assert nested.status_code == 400
    assert nested.json()["error"]["message"] == (
        "Invalid JSON payload received. Unknown name \"intValue\" at 'writes[0].update.fields[0].value': Cannot find field.")
    assert requests.get(f"{fs['base']}/strict/d", headers=fs["headers"], timeout=10).status_code == 404
    # snake_case spellings of real members stay accepted.
    ok = commit(fs, [{"update": {"name": f"{fs['root']}/strict/d", "fields": {"a": {"integer_value": "1"}}},
                      "current_document": {"exists": False}, "update_transforms": []}])
    assert ok.status_code == 200, ok.text


def test_databases_and_projects_are_isolated_and_emulator_delete_clears(fs):
    suite = fs["suite"]
    commit(fs, [update(fs, "c/d", {"x": {"integerValue": "1"}})])
    other = f"http://{suite.firestore}/v1/projects/{suite.project}/databases/other-{fs['database']}/documents"
    assert requests.get(f"{other}/c/d", timeout=10).status_code == 404
    cleared = requests.delete(
        f"http://{suite.firestore}/emulator/v1/projects/{suite.project}/databases/{fs['database']}/documents", timeout=10
    )
    assert cleared.status_code == 200
    assert requests.get(f"{fs['base']}/c/d", timeout=10).status_code == 404


def test_partition_query_splits_a_collection_group_and_refuses_a_collection(fs):
    writes = [{"update": {"name": f"{fs['root']}/p{i // 100}/x/g/d{i:04d}", "fields": {}}} for i in range(300)]
    assert post(fs, "commit", {"writes": writes}).status_code == 200
    group = {"from": [{"collectionId": "g", "allDescendants": True}], "orderBy": [{"field": {"fieldPath": "__name__"}}]}
    r = post(fs, "partitionQuery", {"structuredQuery": group, "partitionCount": "5", "pageSize": 1})
    assert r.status_code == 200, r.text
    first = r.json()
    assert [p["values"][0]["referenceValue"].rsplit("/", 1)[1] for p in first["partitions"]] == ["d0128"]
    rest = post(fs, "partitionQuery", {"structuredQuery": group, "partitionCount": "5", "pageToken": first["nextPageToken"]})
    assert [p["values"][0]["referenceValue"].rsplit("/", 1)[1] for p in rest.json()["partitions"]] == ["d0256"]
    bad = post(fs, "partitionQuery", {"structuredQuery": {"from": [{"collectionId": "c"}]}, "partitionCount": "2"})
    assert bad.status_code == 400
    assert bad.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_run_query_explain_plans_without_running(fs):
    assert post(fs, "commit", {"writes": [{"update": {"name": f"{fs['root']}/c/a", "fields": {"a": {"integerValue": "1"}}}}]}).status_code == 200
    query = {"from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": "a"}, "op": "EQUAL", "value": {"integerValue": "1"}}}}
    plan = post(fs, "runQuery", {"structuredQuery": query, "explainOptions": {}}).json()
    assert len(plan) == 1 and "document" not in plan[0]
    assert plan[0]["explainMetrics"]["planSummary"]["indexesUsed"] == [{"query_scope": "Collection", "properties": "(a ASC, __name__ ASC)"}]
    run = post(fs, "runQuery", {"structuredQuery": query, "explainOptions": {"analyze": True}}).json()
    assert run[-1]["document"]["name"].endswith("/c/a")
    assert run[-1]["explainMetrics"]["executionStats"]["resultsReturned"] == "1"


def _unsigned_token(uid):
    def part(obj):
        return base64.urlsafe_b64encode(_json(obj).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part({'user_id': uid, 'sub': uid})}."


RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /posts/{postId} {
      allow read: if true;
      allow create: if request.auth != null && request.resource.data.authorId == request.auth.uid;
    }
  }
}
"""


def test_security_rules_uploaded_like_the_cli_are_enforced(suite):
    """PUT :securityRules as firebase-tools and rules-unit-testing send it, then requests by callers."""
    project = f"rules-{uuid.uuid4().hex[:8]}"
    emulator = f"http://{suite.firestore}/emulator/v1/projects/{project}:securityRules"
    loaded = requests.put(emulator, json={"rules": {"files": [{"name": "security.rules", "content": RULES}]}}, timeout=10)
    assert loaded.status_code == 200, loaded.text
    assert loaded.json()["issues"] == []
    broken = requests.put(
        emulator, json={"ignore_errors": True, "rules": {"files": [{"content": "service cloud.firestore { match"}]}}, timeout=10
    )
    assert broken.status_code == 200 and broken.json()["issues"][0]["severity"] == "ERROR"

    root = f"projects/{project}/databases/(default)/documents"
    base = f"http://{suite.firestore}/v1/{root}"
    body = _json({"writes": [{"update": {"name": f"{root}/posts/p1", "fields": {"authorId": {"stringValue": "ada"}}}}]})
    anonymous = requests.post(f"{base}:commit", data=body, headers=LITE_HEADERS, timeout=10)
    assert anonymous.status_code == 403
    assert anonymous.json()["error"]["status"] == "PERMISSION_DENIED"
    signed = requests.post(
        f"{base}:commit", data=body, headers={**LITE_HEADERS, "Authorization": f"Bearer {_unsigned_token('ada')}"}, timeout=10
    )
    assert signed.status_code == 200, signed.text
    assert requests.get(f"{base}/posts/p1", timeout=10).status_code == 200
    other = _json({"writes": [{"update": {"name": f"{root}/other/x", "fields": {}}}]})
    assert requests.post(f"{base}:commit", data=other, headers=LITE_HEADERS, timeout=10).status_code == 403
    owner = requests.post(f"{base}:commit", data=other, headers={**LITE_HEADERS, "Authorization": "Bearer owner"}, timeout=10)
    assert owner.status_code == 200
