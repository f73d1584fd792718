"""Generated sessions played as a new user would (settings and source through the API, a local ScreenPipe
imitation, "Collect now" at each of the session's collect moments) and judged against their truth: how many
events, family, outcome and polarity, who a contest's outcome applies to and whom it was against, start and end
within two minutes, the local date, outcome evidence from the activity's own frames, every word said kept with
its speaker's role, nothing an assistant, a headline or a banner said shown as the owner's or the system's.

Sixteen development sessions (the ``dev`` word pools; the bench measures on the held-out ``measure`` pools and
seed): one test each, so the suite's workers share them."""

from __future__ import annotations

import pytest

from screen.imitation.generator import DEV, session
from screen.imitation.generator.play import api_client, play_and_judge
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
SEED = 91
COUNT = 16


@pytest.mark.parametrize("index", range(COUNT))
def test_a_generated_session_gives_the_events_a_person_would_write_down(index):
    generated = session(SEED, index, DEV)
    user = UserFactory(username=generated.username)
    verdict = play_and_judge(generated, api_client(user))
    assert verdict.ok, "\n".join([generated.name, *verdict.failures])
