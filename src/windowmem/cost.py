"""What a window costs: the input bill of a conversation, C_in = Σ_t |W_t|.

Every model call is billed for everything it is sent. With one call per turn, the
conversation's input bill is the sum over turns of the size of that turn's ``sent``
array (see :mod:`windowmem.replay`; a tool-using turn's extra calls are not counted, so
for such chats this is a lower bound). A bigger window keeps more of the past in view and
makes every later call dearer; these functions put numbers on that trade.

>>> from windowmem.messages import user, assistant
>>> from windowmem.policies.n8n import N8nSimpleMemory
>>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
>>> tokens_per_call(chat, N8nSimpleMemory(5))
[1, 3, 5, 7, 9, 11, 11]
>>> input_bill(chat, N8nSimpleMemory(5))
47
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING

from windowmem.conversation import Conversation
from windowmem.errors import PolicyError, WindowMemError
from windowmem.messages import Message
from windowmem.policies.base import TokenCounter, WindowPolicy
from windowmem.replay import as_conversation, iter_turn_views
from windowmem.tokens import count_messages

if TYPE_CHECKING:  # pandas takes half a second to import: only the frame functions need it
    import pandas as pd

#: Builds a policy of a given size, e.g. ``N8nSimpleMemory`` or ``lambda k: make_policy("n8n", k)``.
PolicyFactory = Callable[[int], WindowPolicy]


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


def _policy_factory(make_policy: PolicyFactory | str) -> PolicyFactory:
    if isinstance(make_policy, str):
        from windowmem.policies.registry import make_policy as by_name

        name = make_policy
        return lambda size: by_name(name, size)
    if not callable(make_policy):
        raise PolicyError(
            f"make_policy must build a policy from a size (a class such as N8nSimpleMemory, "
            f"or a policy name), got {type(make_policy).__name__}"
        )
    return make_policy


#: The columns of :func:`cost_by_window`, in order.
COST_BY_WINDOW_COLUMNS = (
    "size",
    "mean tokens per call",
    "max tokens per call",
    "input bill",
    "last-turn tokens",
)


def cost_by_window(
    conversation: Conversation | Sequence[Message],
    make_policy: PolicyFactory | str,
    sizes: Iterable[int],
    counter: TokenCounter = count_messages,
) -> pd.DataFrame:
    """One row per window size: mean and max tokens per call, the input bill, the last call.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> cost_by_window(chat, N8nSimpleMemory, [1, 5, 10])["input bill"].tolist()
    [19, 47, 49]
    """
    conversation = as_conversation(conversation)
    factory = _policy_factory(make_policy)
    rows = []
    for size in sizes:
        calls = tokens_per_call(conversation, factory(size), counter)
        if not calls:
            raise WindowMemError("the conversation has no turns, so there is no call to cost")
        rows.append((size, sum(calls) / len(calls), max(calls), sum(calls), calls[-1]))
    import pandas as pd

    return pd.DataFrame.from_records(rows, columns=list(COST_BY_WINDOW_COLUMNS))


#: The columns of :func:`cost_by_conversation_length`, in order.
COST_BY_LENGTH_COLUMNS = (
    "turns",
    "last-turn tokens",
    "input bill",
    "unbounded last-turn tokens",
    "unbounded input bill",
)


def cost_by_conversation_length(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    counter: TokenCounter = count_messages,
    lengths: Iterable[int] | None = None,
) -> pd.DataFrame:
    """How the bill grows with the conversation: one row per length (in turns), windowed and not.

    The first *n* turns of a conversation are billed the same whatever follows them, so
    one replay gives every prefix: the bill of *n* turns is the running total at *n*.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> cost_by_conversation_length(chat, N8nSimpleMemory(2), lengths=[3, 7])["input bill"].tolist()
    [9, 29]
    """
    conversation = as_conversation(conversation)
    windowed = tokens_per_call(conversation, policy, counter)
    unbounded = unbounded_tokens_per_call(conversation, counter)
    windowed_bill = list(accumulate(windowed))
    unbounded_bill = list(accumulate(unbounded))
    turn_count = len(windowed)
    chosen = range(1, turn_count + 1) if lengths is None else list(lengths)
    rows = []
    for n in chosen:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= turn_count:
            raise WindowMemError(
                f"conversation length {n!r} is out of range: pick whole numbers from 1 to {turn_count}"
            )
        rows.append(
            (n, windowed[n - 1], windowed_bill[n - 1], unbounded[n - 1], unbounded_bill[n - 1])
        )
    import pandas as pd

    return pd.DataFrame.from_records(rows, columns=list(COST_BY_LENGTH_COLUMNS))


def n8n_uniform_bill(
    turns: int, window: int, system_tokens: int, user_tokens: int, reply_tokens: int
) -> int:
    """The closed-form input bill of n8n Simple Memory over *turns* identical user/reply turns.

    Turn t is sent the system message, min(t-1, window) earlier turns (every earlier turn
    when *window* is 0) and its own user message, so

    C_in = T·(s + u) + (u + r)·Σ_{t=1..T} min(t-1, k).

    Once t > k+1 every call costs the same: past the window, the bill grows linearly
    with the conversation instead of quadratically.

    >>> n8n_uniform_bill(turns=7, window=5, system_tokens=0, user_tokens=1, reply_tokens=1)
    47
    """
    for label, value in (
        ("turns", turns),
        ("window", window),
        ("system_tokens", system_tokens),
        ("user_tokens", user_tokens),
        ("reply_tokens", reply_tokens),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise WindowMemError(f"{label} must be a whole number >= 0, got {value!r}")
    if window == 0 or turns <= window + 1:
        earlier_turns = turns * (turns - 1) // 2
    else:
        earlier_turns = window * (window + 1) // 2 + (turns - window - 1) * window
    return turns * (system_tokens + user_tokens) + (user_tokens + reply_tokens) * earlier_turns


__all__ = [
    "COST_BY_LENGTH_COLUMNS",
    "COST_BY_WINDOW_COLUMNS",
    "PolicyFactory",
    "cost_by_conversation_length",
    "cost_by_window",
    "input_bill",
    "n8n_uniform_bill",
    "tokens_per_call",
    "unbounded_tokens_per_call",
]
