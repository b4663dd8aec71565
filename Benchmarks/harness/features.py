"""Which emulator features exist in the built binary, found by asking a running suite."""

import json
import os

from .common import RTDB_NAMESPACE
from .servers import Suite
from .workloads import DOCUMENTS

PENDING = "pending (feature not built)"


class Features:
    def __init__(self):
        self.firestore = False
        self.database = False
        self.snapshot = False

    def describe(self):
        names = [name for name in ("firestore", "database", "snapshot") if getattr(self, name)]
        return ", ".join(names) or "none (routes answer 501)"


def probe(bench):
    """Starts the suite once: a route answering 501 means that emulator has not landed yet."""
    features = Features()
    with Suite(bench, "probe") as suite:
        connection = suite.firestore()
        status, _, _ = connection.request("GET", f"{DOCUMENTS}/probe/missing")
        connection.close()
        features.firestore = status in (200, 404)
        connection = suite.database()
        status, _, _ = connection.request("GET", f"/probe.json?ns={RTDB_NAMESPACE}")
        connection.close()
        features.database = status == 200
        target = os.path.join(suite.dir, "probe-export")
        features.snapshot = export(suite, target) is not None
    return features


def export(suite, target):
    """Asks the hub to export to `target`; returns the status, or None when nothing was written."""
    body = json.dumps({"path": target, "initiatedBy": "emulators:export",
                       "targets": ["firestore", "database"]}).encode()
    connection = suite.hub()
    try:
        status, _, _ = connection.request("POST", "/_admin/export", body)
    finally:
        connection.close()
    if status != 200 or not os.path.exists(os.path.join(target, "firebase-export-metadata.json")):
        return None
    return status
