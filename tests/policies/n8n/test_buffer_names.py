"""n8n's buffer names: session ids resolved as n8n does, ``workflowId__sessionId``, node scoping from 1.4."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from windowmem.errors import SessionKeyError
from windowmem.javascript import js_number_text
from windowmem.policies.n8n import n8n_buffer_key, n8n_node_scope, n8n_safe_name, n8n_session_id
from windowmem.policies.n8n.node_errors import N8nNodeError


class TestN8nSessionId:
    @pytest.mark.parametrize("value", [None, ""])
    def test_missing_id_from_input_is_no_session_id_found(self, value: object) -> None:
        with pytest.raises(N8nNodeError, match="^No session ID found$") as caught:
            n8n_session_id(value, "fromInput")
        assert "'sessionId'" in caught.value.description

    @pytest.mark.parametrize("value", [None, ""])
    def test_empty_custom_key_is_key_parameter_is_empty(self, value: object) -> None:
        with pytest.raises(N8nNodeError, match="^Key parameter is empty$") as caught:
            n8n_session_id(value, "customKey")
        assert "'Key' parameter" in caught.value.description

    @pytest.mark.parametrize("source", ["fromInput", "customKey"])
    def test_numbers_are_stringified_so_42_and_text_42_share(self, source: str) -> None:
        assert n8n_session_id(42, source) == n8n_session_id("42", source) == "42"

    @pytest.mark.parametrize("number", [7.0, -0.0, 0.1 + 0.2, 1e-7, 1e21, 2.0**53])
    def test_floats_are_written_as_javascript_writes_them(self, number: float) -> None:
        assert n8n_session_id(number) == js_number_text(number)

    def test_number_text_follows_javascript(self) -> None:
        assert n8n_session_id(7.0) == "7"
        assert n8n_session_id(2.5) == "2.5"
        assert n8n_session_id(0) == "0"  # 0 is a valid id: n8n only rejects '' and undefined

    @pytest.mark.parametrize("value", [{"id": 1}, ["a"], ("a",)])
    def test_objects_and_lists_are_rejected(self, value: object) -> None:
        with pytest.raises(N8nNodeError, match="^Invalid session ID$") as caught:
            n8n_session_id(value)
        assert caught.value.description == "The session ID must be a text value"

    def test_whitespace_is_kept_as_n8n_does(self) -> None:
        assert n8n_session_id(" s ") == " s "

    def test_unknown_source(self) -> None:
        with pytest.raises(SessionKeyError, match="fromInput"):
            n8n_session_id("x", "fromHeader")  # type: ignore[arg-type]


class TestN8nBufferKey:
    def test_workflow_and_session_joined_by_double_underscore(self) -> None:
        # n8n's own tests expect 'workflow-123__my-session' for this pair.
        assert n8n_buffer_key("workflow-123", "my-session") == "workflow-123__my-session"

    def test_same_id_in_two_workflows_are_two_buffers(self) -> None:
        assert n8n_buffer_key("wf-a", "s") != n8n_buffer_key("wf-b", "s")

    def test_node_scope_only_for_v1_4_from_input(self) -> None:
        assert (
            n8n_node_scope("Agent Memory", type_version=1.4, source="fromInput") == "Agent Memory"
        )
        assert n8n_node_scope("Agent Memory", type_version=1.3, source="fromInput") is None
        assert n8n_node_scope("Agent Memory", type_version=1.4, source="customKey") is None

    def test_two_nodes_fed_by_one_trigger_are_isolated_from_v1_4(self) -> None:
        keys = {
            n8n_buffer_key("wf", "s", n8n_node_scope(name, type_version=1.4, source="fromInput"))
            for name in ("Agent Memory", "Subagent Memory")
        }
        assert len(keys) == 2
        old = {
            n8n_buffer_key("wf", "s", n8n_node_scope(name, type_version=1.3, source="fromInput"))
            for name in ("Agent Memory", "Subagent Memory")
        }
        assert old == {"wf__s"}

    def test_node_names_are_cleaned(self) -> None:
        # The emoji is two UTF-16 units in JavaScript, hence two underscores.
        assert n8n_safe_name("Memory 🧠 #2") == "Memory_____2"
        assert n8n_safe_name("Mémoire") == "M_moire"
        assert n8n_buffer_key("wf", "s", "Memory #2") == "wf__s__Memory__2"

    @pytest.mark.parametrize("workflow, session", [("", "s"), ("wf", ""), ("wf", 42)])
    def test_bad_parts_are_refused(self, workflow: object, session: object) -> None:
        with pytest.raises(SessionKeyError):
            n8n_buffer_key(workflow, session)  # type: ignore[arg-type]


NODE = shutil.which("node")


#: The one seed for the random numbers and names sent to Node.
DIFFERENTIAL_SEED = 20261130


@pytest.mark.skipif(
    NODE is None, reason="Node.js is not installed: the JavaScript cross-check needs `node`"
)
def test_numbers_and_node_names_match_javascript() -> None:
    rng = random.Random(DIFFERENTIAL_SEED)
    numbers = [rng.uniform(-1, 1) * 10 ** rng.randint(-12, 25) for _ in range(400)]
    numbers += [float(rng.randint(-(10**6), 10**6)) for _ in range(50)] + [
        1e21,
        1e-7,
        0.000001,
        5e-324,
    ]
    alphabet = "aZ09_- #()ñé中🧠\t.:/"
    names = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(200)]
    script = (
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify({numbers: input.numbers.map(String),"
        " names: input.names.map(n => n.replace(/[^A-Za-z0-9_-]/g, '_'))}));"
    )
    result = subprocess.run(
        [NODE, "-e", script],
        input=json.dumps({"numbers": numbers, "names": names}),
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    javascript = json.loads(result.stdout)
    assert [js_number_text(x) for x in numbers] == javascript["numbers"]
    assert [n8n_safe_name(n) for n in names] == javascript["names"]
