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


def _edit_fields() -> dict[str, Any]:
    # The website posts section 1's body to a Webhook; an Edit Fields node (passing on only the
    # fields it sets) makes sessionId (tenant + user) and chatInput top-level fields. The
    # workflow has no Chat Trigger. The memory is a new Simple Memory (typeVersion 1.4) renamed
    # "Chat memory", on the default option: the answer is its session key, the id it reads
    # with "__" and the node's cleaned name (the buffer name without the workflow id).
    website = n8n.webhook_item(
        {"tenantId": "tutienda", "userId": "u-1", "threadId": "m-1", "chatInput": "Hi"}
    )
    edited = {
        "sessionId": n8n.evaluate_parameter(
            "={{ $json.body.tenantId }}:{{ $json.body.userId }}", website
        ),
        "chatInput": n8n.evaluate_parameter("={{ $json.body.chatInput }}", website),
    }
    buffer = n8n.buffer_key_or_error(edited, workflow_id="wf1", node_name="Chat memory")
    return {"4": buffer.removeprefix("wf1__")}


def _marta_comes_back() -> dict[str, Any]:
    lucia_writes = desk.Request(desk.LUCIA, "l-1", "Can the armchairs come on Friday?", "Yes.")
    marta_asks = desk.Request(desk.MARTA, "m-1", "Can I pay on delivery?", "Yes, you can.")
    # 40 minutes, Marta asks in her first chat (a read), 40 more, Lucía writes in her own
    # thread (another buffer), 30 more: Marta's history has gone unread for 70 minutes.
    lucia_between = [desk.Pause(40), marta_asks, desk.Pause(40), lucia_writes, desk.Pause(30)]
    return {"2": len(desk.marta_returns("in-process", lucia_between).window)}


def _chat(customer, thread: str, texts: list[str], gap: float) -> list:
    # One tab's messages, *gap* minutes apart, each answered in its own words.
    events: list = []
    for number, text in enumerate(texts, 1):
        events += [desk.Pause(gap)] if events else []
        events.append(desk.Request(customer, thread, text, f"{customer.name}'s reply {number}"))
    return events


def _forgotten_slot() -> dict[str, Any]:
    # Seven exchanges from 12:00 to 12:18, then 13:05 in the same tab: 47 minutes with no run.
    slot = _chat(desk.LUCIA, "l-1", ["deliver 9 to 12"] + [f"question {t}" for t in range(2, 8)], 3)
    slot += [desk.Pause(47), desk.Request(desk.LUCIA, "l-1", "my slot?", "which slot?")]
    call = desk.run_script(slot, desk.key_choice("per thread").template, "in-process").calls[-1]
    return {"3": "scope" if call.foreign else call.missing[0].cause}


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
                (
                    "Carlos",
                    "Marta",
                ): "right about Marta; the question asks whose messages he loads besides his own, so leave Carlos out",
            },
            why="the key holds nothing but the chat's name, and Marta's first chat is m-1 too",
            any_order=True,
            transfer="another key (per thread) and another shop's naming",
        ),
        Expectation(
            "2",
            _marta_comes_back,
            hint="a run reads only its own key's history: when was Marta's last read, and how long ago is that?",
            mistakes={
                6: "Lucía's run read and refreshed her own history, not Marta's; count from Marta's question at minute 40",
                4: "count from Marta's question at minute 40: is her history still there 70 minutes later?",
                2: "the deletion takes the whole history, not its oldest messages",
            },
            why="Marta's question at minute 40 was the last read of her history; Lucía's run read only her own, so Marta's went unread for 70 minutes, and her return's run deleted it before loading",
            transfer="two runs in between, one on her key and one on another, another timing",
        ),
        Expectation(
            "3",
            _forgotten_slot,
            hint="compare the pause with an hour, then count her turns: how many does each model call get?",
            mistakes={
                "storage": "the pause is shorter than an hour and nothing restarted, so her history is still stored",
                "scope": "she wrote in the same tab, which kept its session id, so the key did not change",
            },
            why="her history survived a pause under an hour, but her first message is more than 5 turns back",
            transfer="a long chat and a pause under an hour, a case the lesson has not worked",
        ),
        Expectation(
            "4",
            _edit_fields,
            hint="where does the Edit Fields node put sessionId, where does the default option look, and what does version 1.4 add to the id?",
            mistakes={
                "tutienda:u-1": "half right: that is the session id it reads; on the default option, version 1.4 adds something to it to make the key",
                "tutienda:u-1__Simple_Memory": "the node was renamed: version 1.4 adds the node's present name",
                "tutienda:u-1__Chat memory": "nearly: each space of the node's name is written _ in the key",
                "tutienda:u-1Chat_memory": "nearly: two underscores come between the id and the node's name",
                "u-1__Chat_memory": "the Edit Fields node set sessionId to the tenant, a colon and the user",
                "tutienda:u-1:m-1__Chat_memory": "the Edit Fields node's expression leaves out threadId",
                "No session ID found": "the Edit Fields node made sessionId a top-level field, where the default option reads it",
                "Key parameter is empty": "that is Define below's error; this memory is on the default option",
            },
            why="the Edit Fields node made sessionId a top-level field, where the default option reads it, and version 1.4 adds two underscores and the node's name",
            transfer="the default option behind a Webhook, an Edit Fields node and a renamed memory node, a case the lesson has not worked",
            # A key is matched byte for byte (Postgres's session_id, Simple Memory's buffer
            # name): "Chat_Memory" is another chat's key, not a form of "Chat_memory".
            exact_case=True,
        ),
    ],
)
check = BOOK.check
