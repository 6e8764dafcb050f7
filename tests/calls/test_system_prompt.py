"""An n8n agent's system message and "Message an Assistant"'s memory, by typeVersion (2.41.1's code).

The expectations are the branches of ``prepareMessages`` (``agents/ToolsAgent/common.js``)
and of ``message.operation.js`` as read in ``@n8n/n8n-nodes-langchain`` 2.41.1;
``tests/n8n/test_node_source.py`` checks those lines are still there in the installed
package.
"""

from __future__ import annotations

import pytest

from windowmem.calls.agent_calls import agent_runs
from windowmem.calls.system_prompt import assistant_reads_memory, system_prompt
from windowmem.errors import WindowMemError
from windowmem.messages import assistant, user

FORMAT = "{format instructions}"


@pytest.mark.parametrize(
    ("version", "option", "parser", "sent"),
    [
        (3.1, None, False, None),  # never added: nothing from 1.9 on
        (3.1, "", False, None),  # added and left empty: nothing
        (3.1, "Be brief.", False, "Be brief."),
        (3.1, None, True, FORMAT),  # the parser's instructions on their own
        (1.9, "", True, FORMAT),
        (3.1, "Be brief.", True, "Be brief.\n\n" + FORMAT),
        (1.8, None, False, "You are a helpful assistant"),  # the old default
        (1.8, None, True, "You are a helpful assistant\n\n" + FORMAT),
        (1.8, "", False, None),  # `"" ?? ...` is "": empty is not sent in any typeVersion
    ],
)
def test_the_system_message_follows_prepare_messages(version, option, parser, sent):
    assert system_prompt(version, option, output_parser=parser) == sent


def test_without_a_parser_it_agrees_with_the_agent_s_calls():
    # agent_runs models typeVersion 3.1 with no parser: a system message only when one is set
    bare = [user("Hi"), assistant("Hello")]
    assert agent_runs(bare)[0].calls[0].messages[0].role.value == "user"
    assert system_prompt(3.1, None, output_parser=False) is None


def test_message_an_assistant_reads_a_memory_below_1_6_and_by_default_after():
    assert [assistant_reads_memory(v) for v in (1, 1.5, 1.6, 1.8)] == [True] * 4
    assert not assistant_reads_memory(1.6, "Use thread ID")
    assert assistant_reads_memory(1.8, "Use memory connector")


def test_bad_input_says_what_to_give():
    with pytest.raises(WindowMemError, match="not a number"):
        system_prompt("3.1", None, output_parser=False)  # type: ignore[arg-type]
    with pytest.raises(WindowMemError, match="Use memory connector, Use thread ID"):
        assistant_reads_memory(1.8, "thread")
