"""The recipe's lock: Increment with Expire (EXPIRE after every INCR), If count is 1, Delete after."""

import pytest

from windowmem.outlive.session_lock import Arrival, admit


def ran(outcomes):
    return {o.name: o.ran for o in outcomes}


def test_a_second_request_during_a_run_is_turned_away_and_the_next_after_it_runs():
    outcomes = admit([Arrival("A", 0, 20), Arrival("B", 5, 20), Arrival("C", 30, 20)], ttl=60)
    assert ran(outcomes) == {"A": True, "B": False, "C": True}
    assert [o.count for o in outcomes] == [1, 2, 1]  # A's Delete at 20 reset the key


def test_a_run_longer_than_the_ttl_lets_a_later_request_run_beside_it():
    outcomes = admit([Arrival("A", 0, 75), Arrival("B", 70, 20)], ttl=60)
    assert ran(outcomes) == {"A": True, "B": True}
    assert outcomes[1].overlaps == ("A",)


def test_a_refused_increment_sets_the_expiry_again():
    # B at 50 is refused and moves the expiry to 110, so C at 100 is refused too, though
    # A's own increment alone would have expired at 60.
    outcomes = admit([Arrival("A", 0, 150), Arrival("B", 50, 5), Arrival("C", 100, 5)], ttl=60)
    assert ran(outcomes) == {"A": True, "B": False, "C": False}
    assert [o.expires_at for o in outcomes] == [60, 110, 160]  # EXPIRE after every INCR


def test_bad_values_say_what_to_give():
    with pytest.raises(ValueError, match="ttl"):
        admit([Arrival("A", 0, 1)], ttl=0)
    with pytest.raises(ValueError, match="0 seconds or more"):
        admit([Arrival("A", 0, -1)])


def test_behind_the_lock_the_turned_away_request_sends_and_stores_nothing(tmp_path):
    from windowmem.messages import assistant, user
    from windowmem.outlive.concurrent_runs import Request
    from windowmem.outlive.product_stores import StoreSpec
    from windowmem.outlive.session_lock import run_with_lock

    spec = StoreSpec("n8n-sql", str(tmp_path / "lock.db"))
    history = [user("u1"), assistant("a1")]
    pair = (Request("A", "qA", "aA"), Request("B", "qB", "aB"))
    result = run_with_lock(spec, "s", history, pair, [Arrival("A", 0, 20), Arrival("B", 2, 20)])
    assert result.sent == {"A": ("u1", "a1", "qA"), "B": ()}
    assert result.stored == ("u1", "a1", "qA", "aA")
    assert result.trace[1] == "B Increment → 2, answered “one moment”"
    # B after A's Delete runs, and sees A's turn.
    later = run_with_lock(spec, "s", history, pair, [Arrival("A", 0, 20), Arrival("B", 30, 20)])
    assert later.sent["B"] == ("u1", "a1", "qA", "aA", "qB")
    with pytest.raises(ValueError, match="run_pair"):
        run_with_lock(spec, "s", history, pair, [Arrival("A", 0, 75), Arrival("B", 70, 20)])
