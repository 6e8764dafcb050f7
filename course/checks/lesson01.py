"""Lesson 1's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from windowmem import scope as desk
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.messages import Message
from windowmem.policies import N8nSimpleMemory
from windowmem.policies.n8n import session_ids as n8n
from windowmem.policies.spring_ai_ids import CONVERSATION_ID_KEY, advisor_conversation_id
from windowmem.storage.n8n_postgres_history import N8nPostgresHistory
from windowmem.storage.sql_database import open_sql


def _check_1() -> dict[str, Any]:
    requests = desk.requests_of(desk.support_desk())
    per_user = desk.owners(desk.PER_USER.template, requests)
    marta_key = desk.key_for(desk.PER_USER.template, requests[0])
    # Carlos's thread c-1 renamed m-1: the per-thread key no longer tells the shops apart.
    renamed = [
        replace(r, thread="m-1") if r.customer == desk.CARLOS and r.thread == "c-1" else r
        for r in requests
    ]
    carlos_key = desk.key_for(desk.PER_THREAD.template, renamed[-1])
    return {
        "1a": [n for n in per_user[marta_key] if n != "Marta"],
        "1b": len(desk.buckets(desk.COMPOSITE.template, requests)),
        "1c": sorted(set(desk.owners(desk.PER_THREAD.template, renamed)[carlos_key]) - {"Carlos"}),
    }


def _check_2() -> dict[str, Any]:
    # A 1.1.5 advisor built with .conversationId("support-desk"); only Lucía's calls carry an id.
    contexts = {"Marta": {}, "Carlos": {}, "Lucía": {CONVERSATION_ID_KEY: "lucia-9"}}
    ids = {
        name: advisor_conversation_id(context, "1.1.5", default="support-desk")
        for name, context in contexts.items()
    }
    return {
        "2a": len(set(ids.values())),
        "2b": sorted(name for name in ids if name != "Marta" and ids[name] == ids["Marta"]),
    }


def _check_3() -> dict[str, Any]:
    item = n8n.webhook_item({"sessionId": "abc"})
    # Edit Fields writes the field it sets at the top of the item it passes on.
    edit_fields = {"sessionId": n8n.evaluate_parameter("={{ $json.body.sessionId }}", item)}
    return {
        "3a": n8n.buffer_key_or_error(
            item,
            workflow_id="wf1",
            type_version=1.3,
            id_type="customKey",
            key="={{ $json.sessionId }}",  # the key written for the top of the item
        ),
        "3b": n8n.buffer_key_or_error(edit_fields, workflow_id="wf1", type_version=1.3),
    }


def _check_4() -> dict[str, Any]:
    message = n8n.chat_trigger_item("abc", "Hi")

    def node_key(name, type_version=1.4, **options):
        return n8n.simple_memory_buffer_key(
            message, workflow_id="wf1", type_version=type_version, node_name=name, **options
        )

    own_key = {"id_type": "customKey", "key": "={{ $json.sessionId }}"}
    return {
        # The node that answered Marta is renamed "Memory A" -> "Memory-A": the same buffer?
        "4a": node_key("Memory A") == node_key("Memory-A"),
        # A 1.3 node on the default option beside a 1.4 node on Define below.
        "4b": node_key("Memory A", 1.3) == node_key("Memory B", **own_key),
    }


def _marta_back(
    between: list, template: str = desk.TENANT_USER.template, store: str = "in-process"
) -> Any:
    # The first session, then *between*, then Marta's return in her new thread m-2.
    events = desk.support_desk()
    first, rest = events[: len(events) - 3], events[len(events) - 3 :]
    run = desk.run_script([*first, *between, *rest], template, store)
    return next(call for call in run.calls if call.request.thread == "m-2")


def _check_5() -> dict[str, Any]:
    lucia_writes = desk.Request(desk.LUCIA, "l-1", "Can the armchairs come on Friday?", "Yes.")
    one_more = desk.Request(desk.MARTA, "m-1", "one more thing", "noted")
    return {
        # 50 quiet minutes, Lucía writes in her own thread, 20 more: another buffer was used.
        "5a": len(_marta_back([desk.Pause(50), lucia_writes, desk.Pause(20)]).window),
        # 40 quiet minutes, one more message in Marta's first thread, 40 more.
        "5b": len(_marta_back([desk.Pause(40), one_more, desk.Pause(40)]).window),
        # SQLite over a night, but keyed per thread: her return is in a new thread.
        "5c": len(_marta_back([desk.Pause(14 * 60)], desk.PER_THREAD.template, "sqlite").window),
    }


def _check_6() -> dict[str, Any]:
    # Lucía's request 6 (index 5), in her old thread l-1, after a night between the sessions.
    def lucia_alone(choice, store):
        call = desk.run_script(
            desk.support_desk("a night passes (14 hours)"), desk.key_choice(choice).template, store
        ).calls[5]
        return "#8841" in " ".join(m.content for m in call.window) and not call.foreign

    works = [
        (c.name, s) for c in desk.KEY_CHOICES for s in desk.STORE_KINDS if lucia_alone(c.name, s)
    ]
    return {"6": len(works)}


def _chat(customer, thread: str, texts: list[str], gap: float) -> list:
    # One tab's messages, *gap* minutes apart, each answered in its own words.
    events: list = []
    for number, text in enumerate(texts, 1):
        events += [desk.Pause(gap)] if events else []
        events.append(desk.Request(customer, thread, text, f"{customer.name}'s reply {number}"))
    return events


def _check_7() -> dict[str, Any]:
    def first_cause(script, choice="per thread", store="in-process"):
        call = desk.run_script(script, desk.key_choice(choice).template, store).calls[-1]
        return "scope" if call.foreign else call.missing[0].cause

    # The hosted chat's key is the widget's session id: a new one at each page load, so a thread here.
    reload = [
        desk.Request(desk.MARTA, "m-1", "my order is #6023", "noted"),
        desk.Pause(5),
        desk.Request(desk.MARTA, "m-2", "where is my order?", "which number?"),
    ]
    # 9:00, 9:02, 9:04, then 10:30 in the same tab: 86 minutes unread.
    hose = _chat(desk.CARLOS, "c-1", ["40 metres of hose", "to Mendoza", "by Friday"], 2)
    hose += [desk.Pause(86), desk.Request(desk.CARLOS, "c-1", "how long was it?", "how long?")]
    # Seven exchanges from 12:00 to 12:18, then 13:05 in the same tab: 47 minutes unread.
    slot = _chat(desk.LUCIA, "l-1", ["deliver 9 to 12"] + [f"question {t}" for t in range(2, 8)], 3)
    slot += [desk.Pause(47), desk.Request(desk.LUCIA, "l-1", "my slot?", "which slot?")]
    # Messages from 10:34 to 10:58 (the colour last), a deploy at 11:00, a question at 11:02.
    colour = _chat(desk.LUCIA, "l-1", [f"question {t}" for t in range(1, 9)] + ["blue, please"], 3)
    colour += [
        desk.Restart(),
        desk.Pause(2),
        desk.Request(desk.LUCIA, "l-1", "my colour?", "which?"),
    ]
    return {
        "7a": first_cause(reload),
        "7b": first_cause(hose),
        "7c": first_cause(slot),
        "7d": first_cause(colour),
    }


def _check_8() -> dict[str, Any]:
    # n8n's Postgres Chat Memory table (its layout, on a SQLite file), keyed tenant + user:
    # Marta's first thread written in the evening, read through a new connection in the
    # morning, windowed at Context Window Length 1 as the node windows it.
    first = [
        r
        for r in desk.requests_of(desk.support_desk())
        if r.customer == desk.MARTA and r.thread == "m-1"
    ]
    key = desk.key_for(desk.TENANT_USER.template, first[0])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "n8n.db"
        evening = open_sql(path)
        N8nPostgresHistory(evening, key).add_messages(
            [m for r in first for m in (Message("user", r.text), Message("assistant", r.reply))]
        )
        evening.close()
        morning = open_sql(path)
        stored = N8nPostgresHistory(morning, key).get_messages()
        morning.close()
    return {"8": len(N8nSimpleMemory(1).load(stored))}


BOOK = CheckBook(
    1,
    [
        Expectation(
            "1a",
            _check_1,
            hint="render the template for each request and compare the texts",
            mistakes={
                (): "look again at the userId column: two shops can give two different customers the same id",
                ("Carlos", "Lucía"): "Lucía is u-2, so her key differs from Marta's",
            },
            why="the per user key reads only userId, and both shops number a customer u-1",
        ),
        Expectation(
            "1b",
            _check_1,
            hint="requests with the same tenant, user and thread share one history",
            mistakes={
                3: "3 is tenant + user; the composite also holds the thread, and Marta's fifth request is in a new thread",
                7: "requests in the same thread give the same key, so they share",
                1: "1 is the constant key",
            },
            why="one history per thread of a user of a shop: four threads",
        ),
        Expectation(
            "1c",
            _check_1,
            hint="render thread:{{ $json.body.threadId }} for Carlos's request and for everyone else's",
            mistakes={
                (): "the per thread key reads only threadId: a thread named m-1 in another shop gives the same key",
                ("Lucía",): "Lucía's thread is l-1; look for the other m-1",
            },
            why="the key holds nothing but the thread name, and Marta's first thread is m-1 too",
            transfer="another key (per thread) and another shop's naming",
        ),
        Expectation(
            "2a",
            _check_2,
            hint="give each customer's calls their conversation id first: the context's id if the call carries one, else the fallback",
            mistakes={
                3: "Marta's and Carlos's calls carry no id: do they fall back to two different ids?",
                1: "Lucía's calls carry an id, and the advisor uses the context's id before the builder's",
            },
            why="Lucía's calls use her own id; Marta's and Carlos's both fall back to the builder's id and share it",
            transfer="an advisor built with its own default, serving three customers",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="which conversation id does Marta's call use, and which other customers' calls use the same one?",
            mistakes={
                (): "Marta's call carries no id, so it takes the builder's id: is she the only one whose calls carry none?",
                (
                    "Carlos",
                    "Lucía",
                ): "Lucía's calls carry their own id, which the advisor uses before the builder's",
                (
                    "Lucía",
                ): "Lucía's calls carry their own id; look for the customer whose calls carry none, like Marta's",
            },
            why="every call without an id falls back to the builder's one id, so those customers share one conversation",
            transfer="an advisor built with its own default, serving three customers",
        ),
        Expectation(
            "3a",
            _check_3,
            hint="evaluate the key on the webhook item: what is at the top of it?",
            mistakes={
                "wf1__abc": "that key works behind a Chat Trigger; a webhook puts the client's JSON one level down, under body",
                "abc": "a webhook puts the client's JSON under body, and your key does not look there",
                "No session ID found": "that is the default option's error; with Define below n8n evaluates your key",
            },
            why="a webhook's item has sessionId only under body, so the copied key comes out empty",
            transfer="a Webhook trigger and a key written for the top of the item",
        ),
        Expectation(
            "3b",
            _check_3,
            hint="where does Edit Fields write sessionId, and where does the default option look?",
            mistakes={
                "No session ID found": "that is what the webhook alone gives; Edit Fields wrote sessionId at the top of the item the memory reads",
                "Key parameter is empty": "that is the Define below option's error; this node uses the default option",
                "wf1__": "the expression reads the body's sessionId, which the client sent",
            },
            why="Edit Fields put sessionId at the top of the item, where the default option reads it",
            transfer="an Edit Fields node between the webhook and the agent",
        ),
        Expectation(
            "4a",
            _check_4,
            hint="write the typeVersion 1.4 key before and after the rename, character by character, then compare them",
            mistakes={
                True: "the session id did not change, but the name is in the key: which characters does n8n replace, and which does it keep?"
            },
            why="a hyphen is kept in the name while the space became _, so the renamed node reads and writes a new, empty buffer",
            transfer="a memory node renamed while chats are under way",
        ),
        Expectation(
            "4b",
            _check_4,
            hint="write each node's session key: which option adds the node's name, and at which typeVersion?",
            mistakes={
                False: "typeVersion 1.4 adds the name only on the default option; this 1.4 node uses Define below"
            },
            why="the 1.3 node adds no name, and on Define below neither does the 1.4 node: both keys are the session id",
            transfer="two memory nodes of different typeVersions and options on one chat",
        ),
        Expectation(
            "5a",
            _check_5,
            hint="the hour counts from the last run that read this buffer: which runs read Marta's?",
            mistakes={
                4: "Lucía's run read and refreshed her own buffer, not Marta's; how long has Marta's gone unread?",
                2: "the deletion takes the whole buffer, not its oldest messages",
            },
            why="Lucía's run never read Marta's buffer, so it went unread for 70 minutes and was deleted",
            transfer="another customer's run in between, another timing",
        ),
        Expectation(
            "5b",
            _check_5,
            hint="the hour counts from the last run that read the buffer; count every message stored under her key",
            mistakes={
                0: "80 minutes passed in all, but the hour counts from the last run that read the buffer",
                4: "her extra message and its reply are stored under the same key, so they come too",
                3: "count messages, not requests: each request stores her message and a reply",
                5: "count messages, not requests: each request stores her message and a reply",
            },
            why="her extra message reset the hour, so neither 40-minute silence reached it, and its exchange is stored too",
            transfer="another timing: two 40-minute silences with a message between",
        ),
        Expectation(
            "5c",
            _check_5,
            hint="first ask what SQLite still holds in the morning, then which key her return computes",
            mistakes={
                4: "SQLite kept her first thread, but the per thread key of her return names her new thread",
                2: "SQLite kept her first thread whole; what key does her return compute?",
            },
            why="SQLite kept her first thread, but her return is in a new thread and reads a new, empty history",
            transfer="a lasting store under another key (per thread)",
        ),
        Expectation(
            "6",
            _check_6,
            hint="first ask which store keeps anything overnight, then which keys give Lucía a history of her own",
            mistakes={
                1: "Marta's case allows one pair; Lucía shares her user id and her thread name with nobody",
                2: "count the keys again: Lucía is the only u-2, and l-1 is the only thread of that name",
                3: "count the keys again: Lucía is the only u-2, and l-1 is the only thread of that name",
                5: "the constant key gives her everyone's turns, so it does not count",
                8: "the in-process store deletes a buffer idle for more than an hour, and a night is longer",
                10: "the in-process store loses everything overnight, and the constant key mixes customers",
                0: "SQLite keeps her first turn overnight; which keys then give her a history alone?",
            },
            why="on SQLite every key but the constant gives Lucía a history of her own; in-process nothing survives the night",
            transfer="another customer (Lucía, whose ids collide with nobody's) over every key and store pair",
        ),
        Expectation(
            "7a",
            _check_7,
            hint="what does a reload of the hosted chat page do to the widget's session id?",
            mistakes={
                "storage": "nothing deleted her first message: five minutes is no idle hour and nothing restarted",
                "window": "one exchange is far inside a window of 5; and this request found no history at all",
            },
            why="the reload made a new session id, a new key and an empty history, while her first message sits under the old key",
            transfer="a page reload on the hosted chat, a case the lesson has not worked",
        ),
        Expectation(
            "7b",
            _check_7,
            hint="count his interactions against the window of 5, then the minutes since a run last read his buffer",
            mistakes={
                "window": "three interactions fit a window of 5 with room to spare; look at the clock instead",
                "scope": "he wrote in the same tab, which kept its session id, so the key did not change",
            },
            why="same key, but his buffer went unread for more than an hour, and the next run deleted it",
            transfer="a short chat and a long pause, a case the lesson has not worked",
        ),
        Expectation(
            "7c",
            _check_7,
            hint="compare the pause with an hour, then count her interactions: how many does Simple Memory send?",
            mistakes={
                "storage": "the pause is shorter than an hour and nothing restarted, so her buffer is still stored",
                "scope": "she wrote in the same tab, which kept its session id, so the key did not change",
            },
            why="her buffer survived a pause under an hour, but her first message is more than 5 interactions back",
            transfer="a long chat and a pause under an hour, a case the lesson has not worked",
        ),
        Expectation(
            "7d",
            _check_7,
            hint="what does a deploy do to a map that lives in the n8n process?",
            mistakes={
                "window": "her colour was her latest message, the one a window keeps first",
                "scope": "she wrote in the same tab, which kept its session id, so the key did not change",
            },
            why="the deploy restarted n8n and emptied Simple Memory's map, recent messages with the rest",
            transfer="a deploy in the middle of a chat",
        ),
        Expectation(
            "8",
            _check_8,
            hint="first ask what the table still holds in the morning, then what a window of 1 loads from it",
            mistakes={
                4: "the table kept all four, but the window still decides how many are sent: 1 interaction",
                0: "a database table has no expiry here; the night deleted nothing",
                1: "the window counts interactions, and one interaction is two messages",
            },
            why="the store kept her first thread, and a window of 1 sends its last interaction only",
            transfer="a smaller window on a store that outlives the night",
        ),
    ],
)
check = BOOK.check
