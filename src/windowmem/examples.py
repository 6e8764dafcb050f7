"""The course's sample conversations, shipped as package data.

=====================  ==========================================================
``marta``              TuTienda support, Marta's seven turns; her order #6023 is in turn 1
``empanadas``          exercise 1: Empanadas del Sur, contact Carlos Ruiz in turn 1, five turns
``mentioned_at_start`` exercise 3: a tax ID given in turn 1, "like I mentioned at the start" in turn 12
``tool_use``           TuTienda support with tool calls (ids) and tool results
``support_60``         a long generated support chat (60 turns) for cost plots
``two_orders``         lesson 5: order #4417 in turn 1, then eight turns with six tool calls
=====================  ==========================================================

>>> load_example("marta").turn_count
7
>>> ANCHOR_FACTS["empanadas"]
'Carlos Ruiz'
"""

from __future__ import annotations

import random
from importlib import resources
from pathlib import Path

from windowmem.conversation import Conversation, load_conversation
from windowmem.errors import WindowMemError
from windowmem.messages import Message, assistant, system, user

#: The one seed of every random choice in the generated examples.
EXAMPLE_SEED = 6023

#: The fact each example's first turn gives and a later turn needs.
ANCHOR_FACTS = {
    "marta": "#6023",
    "empanadas": "Carlos Ruiz",
    "mentioned_at_start": "901.442.318-5",
    "tool_use": "#6023",
    "support_60": "#7781",
    "two_orders": "#4417",
}

#: What an example's last turn answers when its call was sent the anchor fact, as (fact, reply):
#: the recording gives the answer without it, and a fix that puts the fact back (a pin, a larger
#: window) gets this one from :func:`windowmem.design.replay.replay_model`.
RECALLS = {
    "two_orders": (
        ANCHOR_FACTS["two_orders"],
        "Your first order was #4417. The backpack is on #4432.",
    ),
}


def _folder() -> Path:
    return Path(str(resources.files("windowmem") / "data" / "conversations"))


def example_names() -> tuple[str, ...]:
    """The names of the shipped sample conversations, sorted.

    >>> "marta" in example_names()
    True
    """
    return tuple(sorted(p.stem for p in _folder().glob("*.json")))


def example_path(name: str) -> Path:
    """The file of the sample conversation *name* (for the command line, say)."""
    names = example_names()
    if name not in names:
        raise WindowMemError(
            f"no sample conversation called {name!r}: use one of {', '.join(names)}"
        )
    return _folder() / f"{name}.json"


def load_example(name: str) -> Conversation:
    """The sample conversation *name*, e.g. ``load_example("marta")``."""
    return load_conversation(example_path(name))


# The generated support chat: a customer gives an order number, then asks a long run of
# everyday questions, and at the end asks for the order number back.
_QUESTIONS = (
    ("Do you ship to {city}?", "Yes, we deliver to {city}; it usually takes {days} business days."),
    (
        "How much is shipping to {city}?",
        "Shipping to {city} costs {price} pesos, and it's free over 150,000 pesos.",
    ),
    ("Do you have the {product} in size {size}?", "Yes, the {product} is in stock in size {size}."),
    (
        "What colours does the {product} come in?",
        "The {product} comes in black, white and navy blue.",
    ),
    ("Can I pay in instalments?", "Yes, with a credit card you can pay in up to 12 instalments."),
    ("Can I pay by bank transfer?", "Yes, we accept bank transfer as well as card."),
    (
        "How long does a size exchange take?",
        "Between 3 and 5 business days from when we receive the item.",
    ),
    ("How long is the warranty?", "Six months against manufacturing defects."),
    (
        "Is the {product} machine washable?",
        "Yes, on a cold, gentle cycle; please don't tumble-dry it.",
    ),
    (
        "Do you have a store in {city}?",
        "Not in {city} yet; our physical store is in Bogotá, in Zona T.",
    ),
    (
        "Can I return something I bought on sale?",
        "Yes, sale items can be returned within 30 days, like any other.",
    ),
    ("Do you sell gift cards?", "Yes, from 50,000 to 500,000 pesos, delivered by email."),
    ("What time does customer service close?", "We answer chats every day from 8 a.m. to 8 p.m."),
    ("Is there a discount for a first purchase?", "Yes, 10% off with the code HOLA10."),
    (
        "Can someone else receive the parcel for me?",
        "Yes, any adult at the address can sign for it.",
    ),
    ("Do you restock the {product} often?", "The {product} is restocked every two weeks."),
)
_CITIES = ("Medellín", "Cali", "Barranquilla", "Cartagena", "Pereira", "Bucaramanga", "Manizales")
_PRODUCTS = (
    "linen shirt",
    "denim jacket",
    "white sneakers",
    "wool scarf",
    "rain jacket",
    "leather belt",
)


def generated_support(turns: int = 60, seed: int = EXAMPLE_SEED) -> Conversation:
    """A deterministic TuTienda chat of *turns* turns: an order number first, everyday questions after.

    >>> chat = generated_support(5)
    >>> chat.turn_count, chat == generated_support(5)
    (5, True)
    """
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 2:
        raise WindowMemError(f"a generated support chat needs at least 2 turns, got {turns!r}")
    rng = random.Random(seed)
    order = ANCHOR_FACTS["support_60"]
    messages: list[Message] = [
        system(
            "You are the support assistant for TuTienda. Respond in English, in a warm, direct tone."
        ),
        user(f"Hi, I'm Lucía, I'm writing about my order {order}."),
        assistant(f"Hi Lucía! I have your order {order} noted. How can I help?"),
    ]
    for _ in range(turns - 2):
        question, answer = rng.choice(_QUESTIONS)
        fill = {
            "city": rng.choice(_CITIES),
            "product": rng.choice(_PRODUCTS),
            "size": rng.choice(("S", "M", "L", "XL", "38", "39", "40", "41")),
            "days": rng.randint(2, 6),
            "price": f"{rng.randint(8, 19)},{rng.choice(('000', '500'))}",
        }
        messages += [user(question.format(**fill)), assistant(answer.format(**fill))]
    messages += [
        user("Before I go: which order number did I give you at the beginning?"),
        assistant(
            "I'm sorry, I no longer have it in our chat. Could you send me the order number again?"
        ),
    ]
    return Conversation(tuple(messages), f"TuTienda support, {turns} generated turns (seed {seed})")
