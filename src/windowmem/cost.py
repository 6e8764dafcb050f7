"""What a window costs: the input bill of a conversation, C_in = Σ_t |W_t|.

Every model call is billed for everything it is sent. With one call per turn, the
conversation's input bill is the sum over turns of the size of that turn's ``sent``
array (see :mod:`windowmem.replay`; a tool-using turn's extra calls are not counted, so
for such chats this is a lower bound). A bigger window keeps more of the past in view and
makes every later call dearer; these functions put numbers on that trade (the tables
that compare sizes and lengths are in :mod:`windowmem.frames`).

>>> from windowmem.messages import user, assistant
>>> from windowmem.policies.n8n import N8nSimpleMemory
>>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
>>> tokens_per_call(chat, N8nSimpleMemory(5))
[1, 3, 5, 7, 9, 11, 11]
>>> input_bill(chat, N8nSimpleMemory(5))
47
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import PolicyError
from windowmem.messages import Message
from windowmem.policies.base import PolicyFactory, WindowPolicy
from windowmem.policies.registry import make_policy as policy_by_name
from windowmem.replay import iter_turn_views
from windowmem.tokens import TokenCounter, count_messages


def tokens_per_call(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    counter: TokenCounter = count_messages,
) -> list[int]:
    """|W_t| for each turn t: the tokens the model is sent on that turn's call."""
    return [view.input_tokens for view in iter_turn_views(conversation, policy, counter)]


def input_bill(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    counter: TokenCounter = count_messages,
) -> int:
    """C_in = Σ_t |W_t|: the input tokens of the whole conversation, one call per turn."""
    return sum(tokens_per_call(conversation, policy, counter))


def unbounded_tokens_per_call(
    conversation: Conversation | Sequence[Message],
    counter: TokenCounter = count_messages,
) -> list[int]:
    """|W_t| with no window at all: system message, every earlier turn, the new message.

    Computed directly from the turns (no policy involved), as the yardstick a window is
    measured against.

    >>> from windowmem.messages import user, assistant
    >>> unbounded_tokens_per_call([user("a"), assistant("b"), user("c"), assistant("d"), user("e")])
    [1, 3, 5]
    """
    conversation = as_conversation(conversation)
    system_message = conversation.system_message
    head = counter(system_message) if system_message is not None else 0
    earlier = 0
    out = []
    for interaction in conversation.interactions:
        opening = interaction.user_message
        out.append(head + earlier + (counter(opening) if opening is not None else 0))
        earlier += sum(counter(m) for m in interaction.messages)
    return out


def policy_factory(make_policy: PolicyFactory | str) -> PolicyFactory:
    """A function from size to policy: *make_policy* itself, or the registry's policy of that name.

    >>> policy_factory("langchain-py")(3).size
    3
    """
    if isinstance(make_policy, str):
        name = make_policy
        return lambda size: policy_by_name(name, size)
    if not callable(make_policy):
        raise PolicyError(
            f"make_policy must build a policy from a size (a class such as N8nSimpleMemory, "
            f"or a policy name), got {type(make_policy).__name__}"
        )
    return make_policy


__all__ = ["input_bill", "policy_factory", "tokens_per_call", "unbounded_tokens_per_call"]
