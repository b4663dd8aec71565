"""google-cloud-firestore's partition and query-explain APIs (both beyond the official emulator).

The same calls the client's own system tests make (`test_partition_query`,
`test_query_stream_or_get_w_explain_options_analyze_*`), which skip themselves under an emulator.
"""

import itertools
import uuid

import pytest
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter
from google.cloud.firestore_v1.query_profile import ExplainOptions, QueryExplainError


@pytest.fixture(scope="module")
def client(suite):
    return firestore.Client(project=suite.project)


def test_get_partitions_cover_the_group_once_in_order(client):
    group = f"pg{uuid.uuid4().hex[:8]}"
    parents = itertools.cycle(("", "abc/123/", "def/456/", "ghi/789/"))
    batch = client.batch()
    expected = []
    for i, parent in zip(range(383), parents):
        path = f"{parent}{group}/cg-doc{i:03d}"
        batch.set(client.document(path), {"x": i})
        expected.append(path)
    batch.commit()
    partitions = list(client.collection_group(group).get_partitions(3))
    assert len(partitions) == 3
    found = [s.reference.path for p in partitions for s in p.query().stream()]
    assert found == sorted(expected)


def test_get_partitions_of_a_small_group_is_one_partition(client):
    group = f"pg{uuid.uuid4().hex[:8]}"
    for path in (f"a/1/{group}/d1", f"{group}/d2", f"b/2/{group}/d3"):
        client.document(path).set({"x": 1})
    partitions = list(client.collection_group(group).get_partitions(5))
    assert len(partitions) == 1
    assert [s.id for s in partitions[0].query().stream()] == ["d1", "d3", "d2"]


@pytest.mark.parametrize("method", ["get", "stream"])
def test_explain_analyze_false_plans_only(client, method):
    col = client.collection(f"ex{uuid.uuid4().hex[:8]}")
    for i in range(3):
        col.document(f"d{i}").set({"a": i % 2})
    results = getattr(col.where(filter=FieldFilter("a", "==", 1)), method)(explain_options=ExplainOptions(analyze=False))
    assert list(results) == []
    metrics = results.get_explain_metrics()
    assert metrics.plan_summary.indexes_used == [{"query_scope": "Collection", "properties": "(a ASC, __name__ ASC)"}]
    with pytest.raises(QueryExplainError):
        metrics.execution_stats


@pytest.mark.parametrize("method", ["get", "stream"])
def test_explain_analyze_true_runs_and_measures(client, method):
    col = client.collection(f"ex{uuid.uuid4().hex[:8]}")
    for i in range(4):
        col.document(f"d{i}").set({"a": i % 2})
    results = getattr(col.where(filter=FieldFilter("a", "==", 1)), method)(explain_options=ExplainOptions(analyze=True))
    assert [s.id for s in results] == ["d1", "d3"]
    stats = results.get_explain_metrics().execution_stats
    assert stats.results_returned == 2 and stats.read_operations == 2
    assert 0 < stats.execution_duration.total_seconds() < 1
    assert {"billing_details", "documents_scanned", "index_entries_scanned"} <= set(stats.debug_stats)
    count = col.where(filter=FieldFilter("a", "==", 1)).count().get(explain_options=ExplainOptions(analyze=True))
    assert count[0][0].value == 2
    assert count.get_explain_metrics().execution_stats.results_returned == 1
