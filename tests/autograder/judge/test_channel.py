"""The channel into a real kernel: plain data both ways, limits per call, nothing printed kept."""

from __future__ import annotations

import time

import pytest
from jupyter_client.manager import AsyncKernelManager
from nbclient.util import run_sync

from autograder.grading.cpu_limit import kernel_pids
from autograder.grading.guard_requests import guard_setup_code
from autograder.judge.channel import KernelChannel
from autograder.judge.kernel_processes import kill_process_group, running
from autograder.judge.raised import CallTimedOut, KernelGone, StudentRaised
from autograder.judge.wire import Opaque

NOTEBOOK = """
import signal, time
def double(values):
    print("printed during a judged call")
    return [2 * v for v in values]
def conversation_turns(conversation):
    return conversation.turn_count
def picky(n):
    class MyError(ValueError):
        pass
    if n < 0:
        raise MyError("no negatives: " + str(n))
    return n
def exits():
    raise SystemExit("a message the judge never sees")
def greets():
    return GREETING + "!"
GREETING = "hello"
def spins(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "done"
def stubborn():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pass
class Anything(list):
    def __eq__(self, other):
        return True
def anything():
    return Anything([1])
answer = {"turns": (1, 2), "ok": True}
SEEN = []
def remembers(n):
    SEEN.append(n)
    return list(SEEN)
def hogs():
    import os
    os._exit(3)
def starts_spinners(n):
    import subprocess, sys
    for _ in range(n):
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
    return n
def sleeps(seconds):
    time.sleep(seconds)
    return "awake"
"""


def run(client, code):
    msg_id = client.execute(code)
    while True:
        reply = run_sync(client.get_shell_msg)(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            assert reply["content"]["status"] == "ok", reply["content"]
            return


def open_channel(calls_apart: bool = True, seconds_left: float | None = None):
    """A channel into a fresh kernel that has run :data:`NOTEBOOK`; its kernel shut down after.

    With *seconds_left*, the judge's deadline is that many seconds after the kernel is ready
    (a kernel starting on a busy machine takes seconds of its own).
    """
    manager = AsyncKernelManager(kernel_name="python3")
    run_sync(manager.start_kernel)()
    client = manager.client()
    client.start_channels()
    run_sync(client.wait_for_ready)(timeout=60)
    run(client, guard_setup_code(1_000_000, ["windowmem"], []))
    run(client, NOTEBOOK)
    channel = KernelChannel(
        client,
        manager,
        cpu_seconds_per_call=2.0,
        interrupt_grace=3.0,
        kill=lambda: kill_process_group(manager),
        calls_apart=calls_apart,
        deadline=None if seconds_left is None else time.monotonic() + seconds_left,
    )
    yield channel
    channel.close()
    client.stop_channels()
    if run_sync(manager.is_alive)():
        run_sync(manager.shutdown_kernel)(now=True)


@pytest.fixture
def kernel():
    # every test holds for calls in place too; these also cover the fork
    yield from open_channel(calls_apart=True)


def test_calls_and_values_cross_as_plain_data(kernel):
    assert kernel.call("double", ([1, 2],), {}) == [2, 4]
    assert kernel.describe("answer") == ("value", {"turns": (1, 2), "ok": True})
    assert kernel.describe("double") == ("function", None)
    assert kernel.describe("not_there") == ("missing", None)


def test_a_conversation_is_rebuilt_in_the_kernel(kernel):
    from windowmem import Conversation

    chat = Conversation.of(
        [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
        ]
    )
    assert kernel.call("conversation_turns", (chat,), {}) == 2


def test_a_conversation_is_sent_whole_once_then_by_its_number(kernel):
    """Calls in forked copies too: the kernel keeps what it was sent before it forks."""
    from windowmem import Conversation

    chat = Conversation.of(
        [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    )
    other = Conversation.of([{"role": "user", "content": "c"}])
    for conversation, turns in ((chat, 1), (chat, 1), (other, 1), (chat, 1)):
        assert kernel.call("conversation_turns", (conversation,), {}) == turns
    kernel.close()  # the kernel serves the judge until then
    run(kernel.client, "assert len(__import__('sys').modules['_autograder_judge'].SENT) == 2")


def test_an_exception_crosses_as_its_builtin_class_without_its_text(kernel):
    with pytest.raises(ValueError) as caught:
        kernel.call("picky", (-4417,), {})
    assert type(caught.value) is ValueError and str(caught.value) == ""
    with pytest.raises(StudentRaised) as caught:
        kernel.call("exits", (), {})
    assert "never sees" not in repr(caught.value)
    assert kernel.call("picky", (3,), {}) == 3  # the kernel serves on


def test_an_object_with_its_own_eq_never_crosses(kernel):
    got = kernel.call("anything", (), {})
    assert isinstance(got, Opaque) and got != [1]


def test_notebook_globals_are_set_for_the_call_and_put_back(kernel):
    assert kernel.call("greets", (), {}, notebook_globals={"GREETING": "hola"}) == "hola!"
    assert kernel.call("greets", (), {}) == "hello!"


def test_what_a_judged_call_prints_is_never_published(kernel):
    kernel.call("double", ([1],), {})
    kernel.close()
    texts = []
    end = time.monotonic() + 3
    while time.monotonic() < end:
        try:
            message = run_sync(kernel.client.iopub_channel.get_msg)(timeout=0.2)
        except Exception:  # noqa: BLE001 - nothing more
            continue
        if message["msg_type"] == "stream":
            texts.append((message["parent_header"].get("msg_id"), message["content"]["text"]))
    assert all("judged call" not in text for _, text in texts)


def test_a_call_past_its_cpu_limit_is_interrupted_and_the_next_call_works(kernel):
    with pytest.raises(CallTimedOut):
        kernel.call("spins", (30,), {})
    assert kernel.call("spins", (0.01,), {}) == "done"
    assert kernel.log.timeouts == ["calling spins"]


def test_a_call_that_ignores_the_interrupt_kills_the_kernel_and_every_later_call_fails(kernel):
    started = time.monotonic()
    with pytest.raises(KernelGone):
        kernel.call("stubborn", (), {})
    with pytest.raises(KernelGone):
        kernel.call("double", ([1],), {})
    assert time.monotonic() - started < 60
    assert not run_sync(kernel.manager.is_alive)()


def test_no_call_remembers_another(kernel):
    """What a call changes goes with its process: a function that keeps the judge's inputs
    finds none of the earlier calls', and the notebook keeps what its own cells made."""
    assert kernel.call("remembers", (5,), {}) == [5]
    assert kernel.call("remembers", (6,), {}) == [6]
    assert kernel.describe("SEEN") == ("value", [])


def test_a_call_that_ends_its_process_is_a_failed_call(kernel):
    with pytest.raises(StudentRaised):
        kernel.call("hogs", (), {})
    assert kernel.call("double", ([3],), {}) == [6]


def test_a_call_sees_the_names_as_its_test_cell_found_them(kernel):
    run(kernel.client, "__import__('sys').modules['_autograder_judge'].note_names(7)")
    run(kernel.client, "GREETING = 'bye'")  # a later cell rebinds a name greets uses
    assert kernel.call("greets", (), {}, at=7) == "hello!"
    assert kernel.describe("GREETING", at=7) == ("value", "hello")
    assert kernel.call("greets", (), {}) == "bye!"  # and the namespace is the notebook's again


def test_the_processes_a_call_starts_do_not_outlive_it():
    """Spinners left by one call would eat the next calls' CPU seconds: they are killed.

    In place, since outside a sandbox only the kernel's descendants are found (a forked
    call's orphans leave the tree; the sandbox's cgroup finds those too).
    """
    for channel in open_channel(calls_apart=False):
        before = set(kernel_pids(channel.manager))
        assert channel.call("starts_spinners", (3,), {}) == 3
        assert channel.log.strays == 3
        assert channel.call("spins", (0.5,), {}) == "done"
        assert channel.log.timeouts == []
        assert {p for p in kernel_pids(channel.manager) if p not in before if running(p)} == set()


def test_past_the_deadline_no_call_is_made_and_each_fails_at_once():
    for channel in open_channel(seconds_left=3.0):
        assert channel.call("double", ([1],), {}) == [2]
        with pytest.raises(CallTimedOut):
            channel.call("sleeps", (30,), {})  # stopped at the deadline
        assert channel.log.out_of_time
        requests = channel.log.requests
        with pytest.raises(CallTimedOut):
            channel.call("double", ([1],), {})
        assert channel.log.requests == requests  # not sent
