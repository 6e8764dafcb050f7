"""Whether an n8n AI Agent call opens with a system message, and what it holds.

Read in ``@n8n/n8n-nodes-langchain`` 2.41.1, ``agents/ToolsAgent/common.js``
(``prepareMessages``), which every AI Agent typeVersion's Tools Agent runs:

* ``useSystemMessage = options.systemMessage ?? typeVersion < 1.9``: a System Message option
  that holds text is sent; one never added is sent, as the default text
  ``You are a helpful assistant`` (``ToolsAgent/prompt.js``), only below typeVersion 1.9;
  one left empty is not sent;
* with an **output parser** connected the agent adds its format instructions: after the
  System Message when one is sent, and otherwise as a system message of their own, so from
  typeVersion 1.9 an agent whose option was never added still sends a system message.

OpenAI's "Message an Assistant" reads a connected memory in every typeVersion: below 1.6
always (it has no *Memory* field), from 1.6 when its *Memory* field is *Use memory
connector*, the default (``vendors/OpenAi/v1/actions/assistant/message.operation.js``).

>>> system_prompt(3.1, None, output_parser=False) is None
True
>>> system_prompt(3.1, None, output_parser=True)
'{format instructions}'
>>> system_prompt(1.8, None, output_parser=False)
'You are a helpful assistant'
"""

from __future__ import annotations

from windowmem.errors import WindowMemError

#: The System Message an agent below typeVersion 1.9 sends when the option was never added.
DEFAULT_SYSTEM_MESSAGE = "You are a helpful assistant"
#: From this AI Agent typeVersion an option never added sends nothing.
NO_DEFAULT_FROM = 1.9
#: Where the output parser's instructions go (n8n's ``{formatting_instructions}``).
FORMAT_INSTRUCTIONS = "{format instructions}"
#: From this typeVersion "Message an Assistant" has a *Memory* field (connector or thread id).
ASSISTANT_MEMORY_FIELD_FROM = 1.6
#: The *Memory* field's two values and its default, as the editor shows them.
ASSISTANT_MEMORY_CHOICES = ("Use memory connector", "Use thread ID")


def _version(type_version: object) -> float:
    if isinstance(type_version, bool) or not isinstance(type_version, int | float):
        raise WindowMemError(
            f"typeVersion {type_version!r} is not a number: give the node's typeVersion, such as 3.1"
        )
    return float(type_version)


def system_prompt(type_version: float, option: str | None, *, output_parser: bool) -> str | None:
    """The system message an AI Agent of *type_version* sends, or None when it sends none.

    *option* is the System Message option's text, ``""`` when it was added and left empty,
    None when it was never added.

    >>> system_prompt(3.1, "Be brief.", output_parser=True)
    'Be brief.\\n\\n{format instructions}'
    >>> system_prompt(1.8, "", output_parser=False) is None
    True
    """
    version = _version(type_version)
    text = option if option is not None else DEFAULT_SYSTEM_MESSAGE
    sends_option = bool(option) if option is not None else version < NO_DEFAULT_FROM
    if sends_option:
        return f"{text}\n\n{FORMAT_INSTRUCTIONS}" if output_parser else text
    return FORMAT_INSTRUCTIONS if output_parser else None


def assistant_reads_memory(type_version: float, memory_field: str | None = None) -> bool:
    """Whether OpenAI's "Message an Assistant" of *type_version* reads a connected memory.

    *memory_field* is its *Memory* field (typeVersion 1.6 and later), None for its default.

    >>> assistant_reads_memory(1.5), assistant_reads_memory(1.8), assistant_reads_memory(1.8, "Use thread ID")
    (True, True, False)
    """
    version = _version(type_version)
    if version < ASSISTANT_MEMORY_FIELD_FROM:
        return True
    choice = ASSISTANT_MEMORY_CHOICES[0] if memory_field is None else memory_field
    if choice not in ASSISTANT_MEMORY_CHOICES:
        raise WindowMemError(
            f"the Memory field is {', '.join(ASSISTANT_MEMORY_CHOICES)}, not {memory_field!r}"
        )
    return choice == ASSISTANT_MEMORY_CHOICES[0]


__all__ = [
    "ASSISTANT_MEMORY_CHOICES",
    "ASSISTANT_MEMORY_FIELD_FROM",
    "DEFAULT_SYSTEM_MESSAGE",
    "FORMAT_INSTRUCTIONS",
    "NO_DEFAULT_FROM",
    "assistant_reads_memory",
    "system_prompt",
]
