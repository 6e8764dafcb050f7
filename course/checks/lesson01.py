"""Lesson 1's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from windowmem import scope as desk
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.policies.n8n import session_ids as n8n


def _check_1() -> dict[str, Any]:
    requests = desk.requests_of(desk.support_desk())
    # Carlos's thread c-1 renamed m-1: the per-thread key no longer tells the shops apart.
    renamed = [
        replace(r, thread="m-1") if r.customer == desk.CARLOS and r.thread == "c-1" else r
        for r in requests
    ]
    carlos_key = desk.key_for(desk.PER_THREAD.template, renamed[-1])
    return {
        "1": sorted(set(desk.owners(desk.PER_THREAD.template, renamed)[carlos_key]) - {"Carlos"}),
    }


def _check_2() -> dict[str, Any]:
    # A Chat Trigger and a Webhook start the same agent; the website's request starts the run
    # at the Webhook, so the Chat Trigger has no output in it and the fallback finds nothing.
    website = n8n.webhook_item({"sessionId": "abc", "chatInput": "Hi"})
    return {
        "2": n8n.buffer_key_or_error(
            website, workflow_id="support-agent", type_version=1.4, chat_trigger=None
        ),
    }


def _check_3() -> dict[str, Any]:
    lucia_writes = desk.Request(desk.LUCIA, "l-1", "Can the armchairs come on Friday?", "Yes.")
    marta_asks = desk.Request(desk.MARTA, "m-1", "Can I pay on delivery?", "Yes, you can.")
    # 40 minutes, Marta asks in her first chat (a read), 40 more, Lucía writes in her own
    # thread (another buffer), 30 more: Marta's history has gone unread for 70 minutes.
    lucia_between = [desk.Pause(40), marta_asks, desk.Pause(40), lucia_writes, desk.Pause(30)]
    return {"3": len(desk.marta_returns("in-process", lucia_between).window)}


def _chat(customer, thread: str, texts: list[str], gap: float) -> list:
    # One tab's messages, *gap* minutes apart, each answered in its own words.
    events: list = []
    for number, text in enumerate(texts, 1):
        events += [desk.Pause(gap)] if events else []
        events.append(desk.Request(customer, thread, text, f"{customer.name}'s reply {number}"))
    return events


def _check_4() -> dict[str, Any]:
    def first_cause(script, choice="per thread", store="in-process"):
        call = desk.run_script(script, desk.key_choice(choice).template, store).calls[-1]
        return "scope" if call.foreign else call.missing[0].cause

    # Simple Memory 1.4's default option files a chat under the session id, "__" and the node's
    # name: renaming the node gives Marta's open chat a new buffer (the thread here), while
    # her messages stay under the old one.
    chat = n8n.chat_trigger_item("m-1", "where is my order?")
    before, after = (
        n8n.simple_memory_buffer_key(
            chat, workflow_id="support-agent", type_version=1.4, node_name=name
        )
        for name in ("Simple Memory", "Support memory")
    )
    rename = [
        desk.Request(desk.MARTA, before, "my order is #6023", "noted"),
        desk.Pause(10),
        desk.Request(desk.MARTA, after, "where is my order?", "which number?"),
    ]
    # Seven exchanges from 12:00 to 12:18, then 13:05 in the same tab: 47 minutes unread.
    slot = _chat(desk.LUCIA, "l-1", ["deliver 9 to 12"] + [f"question {t}" for t in range(2, 8)], 3)
    slot += [desk.Pause(47), desk.Request(desk.LUCIA, "l-1", "my slot?", "which slot?")]
    return {"4a": first_cause(rename), "4b": first_cause(slot)}


BOOK = CheckBook(
    1,
    [
        Expectation(
            "1",
            _check_1,
            hint="render thread:{{ $json.body.threadId }} for Carlos's request and for everyone else's",
            mistakes={
                (): "the per thread key reads only threadId: a chat named m-1 in another shop gives the same key",
                ("Lucía",): "Lucía's chat is l-1; look for the other m-1",
                (
                    "Lucía",
                    "Marta",
                ): "Lucía's chat is l-1, so her key differs; look for the other m-1",
            },
            why="the key holds nothing but the chat's name, and Marta's first chat is m-1 too",
            transfer="another key (per thread) and another shop's naming",
        ),
        Expectation(
            "2",
            _check_2,
            hint="where in the Webhook's item is sessionId, and did the Chat Trigger run in this run?",
            mistakes={
                "abc__Simple_Memory": "the fallback reads the Chat Trigger's output in the same run, and this run started at the Webhook: the Chat Trigger never ran",
                "abc": "the fallback reads the Chat Trigger's output in the same run, and this run started at the Webhook: the Chat Trigger never ran",
                "Key parameter is empty": "that is Define below's error; this memory is on the default option",
            },
            why="the Webhook's item holds sessionId under body, not at the top, and a run the Webhook started never ran the Chat Trigger, so the fallback finds nothing either",
            transfer="the default option behind a Webhook, in a workflow that also has a Chat Trigger",
        ),
        Expectation(
            "3",
            _check_3,
            hint="a run reads only its own key's history: when was Marta's last read, and how long ago is that?",
            mistakes={
                6: "Lucía's run read and refreshed her own history, not Marta's; count from Marta's question at minute 40",
                4: "count from Marta's question at minute 40: is her history still there 70 minutes later?",
                2: "the deletion takes the whole history, not its oldest messages",
            },
            why="Marta's question at minute 40 was the last read of her history; Lucía's run read only her own, so Marta's went unread for 70 minutes and was deleted",
            transfer="two runs in between, one on her key and one on another, another timing",
        ),
        Expectation(
            "4a",
            _check_4,
            hint="on Simple Memory 1.4, what goes into the key besides the session id?",
            mistakes={
                "storage": "nothing deleted her messages: a published edit is no restart, and ten minutes is no idle hour",
                "window": "one exchange is far inside a window of 5; and this request found no history at all",
            },
            why="on 1.4 the default option puts the node's name in the key, so the rename gave her chat a new, empty key; her messages still sit under the old one",
            transfer="a renamed memory node on typeVersion 1.4, a case the lesson has not worked",
        ),
        Expectation(
            "4b",
            _check_4,
            hint="compare the pause with an hour, then count her interactions: how many does Simple Memory send?",
            mistakes={
                "storage": "the pause is shorter than an hour and nothing restarted, so her history is still stored",
                "scope": "she wrote in the same tab, which kept its session id, so the key did not change",
            },
            why="her history survived a pause under an hour, but her first message is more than 5 interactions back",
            transfer="a long chat and a pause under an hour, a case the lesson has not worked",
        ),
    ],
)
check = BOOK.check
