"""Tensorify Window Memory's session key: the rendered template, or one shared buffer per workflow."""

from __future__ import annotations

import pytest

from windowmem.errors import SessionKeyError
from windowmem.policies.tensorify import tensorify_session_key
from windowmem.scope.session_keys import PER_USER


def request(**body: object) -> dict[str, object]:
    return {"input": {"body": body}}


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
