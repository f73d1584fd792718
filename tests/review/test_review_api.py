"""``/api/v1/review/``: queue with filters and cursors, decide, undo, bulk, stats; errors as JSON ``detail``."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ledger.models import Commit, Fact
from review import queries
from tests.factories import FactFactory

pytestmark = pytest.mark.django_db


def test_get_queue_filters_by_band_source_and_subject(api, user, pending):
    pending(user, "Alice grows tomatoes", source="wearable:limitless")
    pending(user, "Alice fixed the build", source="chat:claude-code")
    about_priya = pending(user, "Priya plays squash", subject="third_party", person="Priya")
    body = api.get("/review/", {"source": "chat:claude-code"}).json()
    assert [i["content"] for i in body["items"]] == ["Alice fixed the build"]
    entity = str(Fact.objects.get(pk=about_priya.pk).subject_entity.public_id)
    body = api.get("/review/", {"subject": entity}).json()
    assert [i["content"] for i in body["items"]] == ["Priya plays squash"]
    assert body["items"][0]["subject_name"] == "Priya"
    assert api.get("/review/", {"band": "dropped"}).json()["count"] == 0


def test_get_queue_pages_with_a_cursor(api, user, pending):
    for n in range(5):
        pending(user, f"Alice memory {n} for paging", trust=0.5 + n / 50)
    first = api.get("/review/", {"limit": 2}).json()
    second = api.get("/review/", {"limit": 2, "cursor": first["next_cursor"]}).json()
    third = api.get("/review/", {"limit": 2, "cursor": second["next_cursor"]}).json()
    ids = [i["id"] for p in (first, second, third) for i in p["items"]]
    assert len(ids) == 5 == len(set(ids))
    assert third["next_cursor"] is None


def test_decide_writes_a_reviewer_commit(api, user, pending):
    fact = pending(user, "Alice takes the 7:40 train")
    response = api.post("/review/decide", {"item": str(fact.public_id), "action": "accept"})
    assert response.status_code == 200
    assert response.json()["item"]["status"] == "accepted"
    assert Commit.objects.filter(owner=user, author="reviewer").count() == 1


def test_decide_snooze_and_edit_take_their_arguments(api, user, pending):
    fact = pending(user, "Alice might learn piano")
    until = (queries.local_today(user) + timedelta(days=2)).isoformat()
    r = api.post("/review/decide", {"item": str(fact.public_id), "action": "snooze", "snooze_until": until})
    assert r.status_code == 200
    other = pending(user, "Alice learns violn")
    r = api.post("/review/decide", {"item": str(other.public_id), "action": "edit", "edit": "Alice learns violin"})
    assert r.json()["item"]["content"] == "Alice learns violin"


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"action": "frobnicate"}, 422, "unknown action"),
        ({"action": "edit"}, 422, "corrected wording"),
        ({"action": "merge", "merge_into": "nope"}, 422, "merge_into"),
        ({"action": "snooze"}, 422, "date"),
    ],
)
def test_decide_errors_are_4xx_with_a_detail(api, user, pending, body, status, words):
    fact = pending(user, "Alice bakes sourdough")
    response = api.post("/review/decide", {"item": str(fact.public_id), **body})
    assert response.status_code == status
    assert words in response.json()["detail"]
    assert Fact.objects.get(pk=fact.pk).status == "pending_review"


def test_decide_on_a_stale_item_is_409(api, user, pending):
    fact = pending(user, "Alice is left-handed")
    api.post("/review/decide", {"item": str(fact.public_id), "action": "reject"})
    response = api.post("/review/decide", {"item": str(fact.public_id), "action": "accept"})
    assert response.status_code == 409
    assert "already rejected" in response.json()["detail"]


def test_decide_on_someone_elses_item_is_404(other_api, user, pending):
    fact = pending(user, "Alice's PIN hint")
    response = other_api.post("/review/decide", {"item": str(fact.public_id), "action": "accept"})
    assert response.status_code == 404
    assert "detail" in response.json()


def test_undo_and_stats(api, user, pending):
    fact = pending(user, "Alice prefers aisle seats")
    api.post("/review/decide", {"item": str(fact.public_id), "action": "reject"})
    stats = api.get("/review/stats").json()
    assert (stats["decided_today_by_person"], stats["queue_size"], stats["budget"]) == (1, 0, 20)
    undone = api.post("/review/undo").json()
    assert undone == {"undone": 1, "items": [str(fact.public_id)]}
    assert api.get("/review/stats").json()["queue_size"] == 1
    assert api.post("/review/undo").status_code == 409


def test_bulk_reject_of_the_auto_accepted_band(api, user):
    for n in range(2):
        FactFactory(owner=user, content=f"Alice auto fact {n}", status="accepted")
    wrong = api.post("/review/bulk", {"band": "auto_accepted", "action": "reject", "expected": 3})
    assert wrong.status_code == 409
    ok = api.post("/review/bulk", {"band": "auto_accepted", "action": "reject", "expected": 2})
    assert ok.json() == {"decided": 2}
    assert Fact.objects.filter(owner=user, status="rejected").count() == 2
    assert api.post("/review/bulk", {"band": "auto_accepted", "action": "accept", "expected": 0}).status_code == 422


def test_unknown_band_is_422(api):
    response = api.get("/review/", {"band": "everything"})
    assert response.status_code == 422
    assert "band" in response.json()["detail"]


def test_bad_cursor_and_subject_are_4xx_or_empty_never_500(api, auth_client, user, pending):
    pending(user, "Alice whistles")
    assert api.get("/review/", {"cursor": "!!!"}).status_code == 400
    assert api.get("/review/", {"band": "dropped", "subject": "not-a-uuid"}).json()["count"] == 0
    assert auth_client.get("/review/?cursor=garbage").status_code == 200
    assert auth_client.get("/review/?band=nonsense&subject=zzz").status_code == 200
