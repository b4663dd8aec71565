"""The official Admin SDK, pointed at the suite by the usual variables, reaches our ports.

Until the emulators land the answers are 501; these tests pin that the SDK's requests arrive
here (and fail fast), not at production. Later issues replace them with real behaviour.
"""

import firebase_admin
import pytest
from firebase_admin import db, exceptions


@pytest.fixture(scope="module")
def app(suite):
    app = firebase_admin.initialize_app(
        options={"projectId": suite.project, "databaseURL": f"https://{suite.project}-default-rtdb.firebaseio.com"},
        name="interop-admin",
    )
    yield app
    firebase_admin.delete_app(app)


def test_realtime_database_reference_reaches_the_database_port(suite, app):
    reference = db.reference("/users/ada", app=app)
    with pytest.raises(exceptions.FirebaseError) as failure:
        reference.get()
    response = failure.value.http_response
    assert response is not None
    assert response.status_code == 501
    assert response.url.startswith(f"http://{suite.database}/users/ada.json")
    assert f"ns={suite.project}-default-rtdb" in response.url
