"""Every link the repository ships opens the same state as when ``tests/data/link_states.json`` was
written (before the page table became one spec per page): the same page, typed values, defaults,
checks against its tree, and the same model or run configuration (the numbers the engine computes
within a relative ``tests.link_states.REL``, everything else exactly)."""

import json

import pytest

from tests.link_states import FIXTURE, decoded_state, differences, shipped_links

BEFORE = json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_the_fixture_holds_the_links_the_repository_ships():
    assert len(BEFORE) >= 50
    shipped = set(shipped_links())
    assert len(shipped & set(BEFORE)) >= 50   # docs may change; the links kept must keep their meaning


@pytest.mark.parametrize("text", sorted(BEFORE))
def test_a_shipped_link_opens_the_same_state_as_before(text):
    assert differences(json.loads(json.dumps(decoded_state(text))), BEFORE[text]) == []
