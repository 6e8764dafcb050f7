"""Key templates: rendering a session key from request fields, and reading field paths.

How products name their buffers is tested with the product: n8n in
``tests/policies/n8n/test_buffer_names.py``, Tensorify in ``tests/policies/test_tensorify.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from windowmem.errors import SessionKeyError
from windowmem.key_templates import (
    lookup,
    parse_path,
    placeholders,
    render_key,
)
from windowmem.scope.session_keys import (
    PER_THREAD,
    PER_USER,
    is_shared_key,
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


# --- against JavaScript itself, where Node.js is installed --------------------------------
