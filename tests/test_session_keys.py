"""Session keys: templates, shared-key detection, Tensorify's fallback and n8n's rules."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from windowmem.errors import SessionKeyError
from windowmem.javascript import js_number_text
from windowmem.policies.n8n import n8n_buffer_key, n8n_node_scope, n8n_safe_name, n8n_session_id
from windowmem.policies.tensorify import tensorify_session_key
from windowmem.session_keys import (
    KEY_PATTERNS,
    PER_THREAD,
    PER_USER,
    SHARED,
    is_shared_key,
    lookup,
    parse_path,
    placeholders,
    render_key,
    shared_key_problem,
)


def request(**body: object) -> dict[str, object]:
    return {"input": {"body": body}}


class TestRenderKey:
    def test_per_user_template_from_the_seed(self) -> None:
        assert render_key(PER_USER.template, request(user_id="marta")) == "user:marta"

    def test_per_thread_template_from_the_seed(self) -> None:
        assert render_key(PER_THREAD.template, request(thread_id="t-17")) == "thread:t-17"

    def test_two_users_get_two_keys_and_one_user_keeps_hers(self) -> None:
        marta = render_key(PER_USER.template, request(user_id="marta"))
        luis = render_key(PER_USER.template, request(user_id="luis"))
        assert marta != luis
        assert marta == render_key(PER_USER.template, request(user_id="marta", text="second turn"))

    def test_header_subscript_like_the_tensorify_example(self) -> None:
        data = {"api_request": {"headers": {"x-tensorify-session-id": "abc"}}}
        assert (
            render_key('user:{{ api_request.headers["x-tensorify-session-id"] }}', data)
            == "user:abc"
        )

    def test_several_placeholders_and_list_index(self) -> None:
        data = {"body": {"org": "acme", "users": [{"id": 7}]}}
        assert render_key("org:{{body.org}}:user:{{ body.users[0].id }}", data) == "org:acme:user:7"

    def test_missing_field_names_the_field_and_the_template(self) -> None:
        with pytest.raises(SessionKeyError) as caught:
            render_key(PER_USER.template, request(thread_id="t-1"))
        message = str(caught.value)
        assert "input.body.user_id" in message and PER_USER.template in message

    def test_missing_intermediate_object_says_where_the_walk_stopped(self) -> None:
        with pytest.raises(SessionKeyError, match="input has no 'body'"):
            render_key(PER_USER.template, {"input": {}})

    @pytest.mark.parametrize("value", [None, "", {"id": 1}, [1, 2]])
    def test_null_empty_or_object_ids_are_refused(self, value: object) -> None:
        with pytest.raises(SessionKeyError, match="user_id"):
            render_key(PER_USER.template, request(user_id=value))

    def test_bad_path_syntax_is_explained(self) -> None:
        with pytest.raises(SessionKeyError, match="names joined by dots"):
            render_key("user:{{ input..body }}", request(user_id=1))

    @pytest.mark.parametrize(
        "template", ["user:{{ input.body.user_id", "user:input.body.user_id }}"]
    )
    def test_unbalanced_braces_are_refused_not_treated_as_constant(self, template: str) -> None:
        with pytest.raises(SessionKeyError, match="unmatched"):
            render_key(template, request(user_id=1))
        with pytest.raises(SessionKeyError, match="unmatched"):
            is_shared_key(template)

    def test_numbers_render_like_text_ids(self) -> None:
        assert render_key(PER_USER.template, request(user_id=42)) == render_key(
            PER_USER.template, request(user_id="42")
        )

    @settings(max_examples=200, deadline=None)
    @given(st.text(min_size=1).filter(lambda s: "{{" not in s and "}}" not in s))
    def test_any_nonempty_text_id_round_trips(self, user_id: str) -> None:
        assert render_key(PER_USER.template, request(user_id=user_id)) == "user:" + user_id


class TestPaths:
    def test_parse_path_steps(self) -> None:
        assert parse_path("a.b_c.d-e") == ("a", "b_c", "d-e")
        assert parse_path("a['x y'][2]") == ("a", "x y", 2)

    def test_lookup_does_not_index_strings(self) -> None:
        with pytest.raises(SessionKeyError):
            lookup({"a": "text"}, "a[0]")

    def test_placeholders_in_order(self) -> None:
        assert placeholders("{{ a }}-{{b.c}}") == ("a", "b.c")


class TestSharedKeys:
    @pytest.mark.parametrize("template", ["global", "default", "chat_history", SHARED.template])
    def test_constant_keys_are_flagged_with_the_reason(self, template: str) -> None:
        assert is_shared_key(template)
        problem = shared_key_problem(template)
        assert problem is not None and "share one buffer" in problem and template in problem

    @pytest.mark.parametrize("pattern", [PER_USER, PER_THREAD])
    def test_varying_keys_are_not_flagged(self, pattern) -> None:
        assert not is_shared_key(pattern.template)
        assert shared_key_problem(pattern.template) is None

    def test_the_three_documented_patterns(self) -> None:
        assert [p.name for p in KEY_PATTERNS] == ["per-user", "per-thread", "shared"]
        assert [is_shared_key(p.template) for p in KEY_PATTERNS] == [False, False, True]


class TestTensorify:
    @pytest.mark.parametrize("template", [None, "", "   "])
    def test_no_key_falls_back_to_one_buffer_per_workflow(self, template: str | None) -> None:
        assert tensorify_session_key(template, request(user_id="a"), "wf-9") == "agent_memory:wf-9"
        # Two different users land in the same buffer: the documented production mistake.
        assert tensorify_session_key(template, request(user_id="b"), "wf-9") == "agent_memory:wf-9"

    def test_a_set_key_is_rendered(self) -> None:
        assert tensorify_session_key(PER_USER.template, request(user_id="a"), "wf-9") == "user:a"

    def test_fallback_needs_a_workflow_id(self) -> None:
        with pytest.raises(SessionKeyError, match="workflow id"):
            tensorify_session_key(None, {}, "")


class TestN8nSessionId:
    @pytest.mark.parametrize("value", [None, ""])
    def test_missing_id_from_input_is_no_session_id_found(self, value: object) -> None:
        with pytest.raises(SessionKeyError, match="^No session ID found"):
            n8n_session_id(value, "fromInput")

    @pytest.mark.parametrize("value", [None, ""])
    def test_empty_custom_key_is_key_parameter_is_empty(self, value: object) -> None:
        with pytest.raises(SessionKeyError, match="^Key parameter is empty"):
            n8n_session_id(value, "customKey")

    @pytest.mark.parametrize("source", ["fromInput", "customKey"])
    def test_numbers_are_stringified_so_42_and_text_42_share(self, source: str) -> None:
        assert n8n_session_id(42, source) == n8n_session_id("42", source) == "42"

    @pytest.mark.parametrize(
        "number, javascript",
        [  # what String(x) prints in JavaScript (ECMAScript Number::toString)
            (7.0, "7"),
            (-2.0, "-2"),
            (-0.0, "0"),
            (123.456, "123.456"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.00001, "0.00001"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-10, "1.5e-10"),
            (1e16, "10000000000000000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (2.0**53, "9007199254740992"),
        ],
    )
    def test_floats_are_written_as_javascript_writes_them(
        self, number: float, javascript: str
    ) -> None:
        assert js_number_text(number) == javascript
        assert n8n_session_id(number) == javascript

    def test_number_text_follows_javascript(self) -> None:
        assert n8n_session_id(7.0) == "7"
        assert n8n_session_id(2.5) == "2.5"
        assert n8n_session_id(0) == "0"  # 0 is a valid id: n8n only rejects '' and undefined

    @pytest.mark.parametrize("value", [{"id": 1}, ["a"], ("a",)])
    def test_objects_and_lists_are_rejected(self, value: object) -> None:
        with pytest.raises(SessionKeyError, match="not text"):
            n8n_session_id(value)

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


# --- against JavaScript itself, where Node.js is installed --------------------------------

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
