"""Lesson 1's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from windowmem import scope as desk
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.policies.n8n import session_ids as n8n
from windowmem.policies.spring_ai_ids import CONVERSATION_ID_KEY, advisor_conversation_id


def _marta_returns(store: str, between: str, window: int = 5) -> Any:
    # Marta's second visit (thread m-2) after *between*, keyed by tenant + user.
    run = desk.run_script(
        desk.support_desk(between), desk.TENANT_USER.template, store, window=window
    )
    return next(call for call in run.calls if call.request.thread == "m-2")


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
            key="={{ $json.sessionId }}",  # copied from a Chat Trigger workflow
        ),
        "3b": n8n.buffer_key_or_error(edit_fields, workflow_id="wf1", type_version=1.3),
    }


def _check_4() -> dict[str, Any]:
    message = n8n.chat_trigger_item("abc", "Hi")

    def node_key(name, **options):
        return n8n.simple_memory_buffer_key(
            message, workflow_id="wf1", type_version=1.4, node_name=name, **options
        )

    old_node = n8n.simple_memory_buffer_key(
        message, workflow_id="wf1", type_version=1.3, node_name="Memory A"
    )
    return {
        # The node that answered Marta is renamed: does her next message reach the same buffer?
        "4a": node_key("Memory A") == node_key("Support memory"),
        "4b": old_node == node_key("Memory B"),
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


def _check_7() -> dict[str, Any]:
    def first_cause(script, choice, store="in-process"):
        call = desk.run_script(script, desk.key_choice(choice).template, store).calls[-1]
        return "scope" if call.foreign else call.missing[0].cause

    long_chat = [
        desk.Request(
            desk.MARTA, "m-1", f"turn {t}" + (" order #6023" if t == 1 else ""), f"reply {t}"
        )
        for t in range(1, 10)
    ]
    # The hosted chat's key is the widget's session id: one per tab, so a thread here.
    new_tab = [
        desk.Request(desk.MARTA, "m-1", "order #6023", "ok"),
        desk.Request(desk.MARTA, "m-2", "my order?", "checking"),
    ]
    lunch = [
        desk.Request(desk.MARTA, "m-1", "order #6023", "ok"),
        desk.Pause(75),
        desk.Request(desk.MARTA, "m-1", "my order?", "checking"),
    ]
    return {
        "7a": first_cause(long_chat, "per thread"),
        "7b": first_cause(new_tab, "per thread"),
        "7c": first_cause(lunch, "per thread"),
    }


def _check_8() -> dict[str, Any]:
    return {"8": len(_marta_returns("sqlite", "a night passes (14 hours)", window=1).window)}


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
            transfer="a Webhook trigger and a key copied from a Chat Trigger workflow",
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
            hint="write the typeVersion 1.4 key before and after the rename, then compare them",
            mistakes={
                True: "the session id did not change, but with the default option something else is in the key"
            },
            why="the default option puts the node's name in the key, so the renamed node reads and writes a new, empty buffer",
            transfer="a memory node renamed while chats are under way",
        ),
        Expectation(
            "4b",
            _check_4,
            hint="which of the two typeVersions adds the node's name to the key?",
            mistakes={
                True: "the 1.3 node's key is the session id alone; check what the 1.4 node's key adds"
            },
            why="only the 1.4 node adds its name, so the two keys differ",
            transfer="two memory nodes of different typeVersions on one chat",
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
            hint="is the history still stored under the same key?",
            mistakes={
                "storage": "the agent still answers about 11:50, so nothing deleted the history",
                "scope": "one tab keeps one session id, so the key was the same on every turn",
            },
            why="the key and the store are fine; turn 1 has left the window",
            transfer="three symptoms the lesson has not shown",
        ),
        Expectation(
            "7b",
            _check_7,
            hint="is the laptop's history still stored, and does the phone's widget know the laptop's session id?",
            mistakes={
                "window": "her first message from the phone finds no history at all: the window had nothing to cut",
                "storage": "the laptop's tab still gets her order number, so that history is still stored",
            },
            why="the phone's browser made its own session id, a new key: the request read a new, empty history beside the old one",
            transfer="a second device, a case the lesson has not shown",
        ),
        Expectation(
            "7c",
            _check_7,
            hint="what does Simple Memory do with a buffer nobody used for more than an hour?",
            mistakes={
                "scope": "he wrote in the same tab, which kept its session id, so the key did not change",
                "window": "an empty history is not a window problem: there was nothing to window",
            },
            why="same id, same key, but his buffer went unread for more than an hour: the store deleted it",
        ),
        Expectation(
            "8",
            _check_8,
            hint="first ask what SQLite still holds in the morning, then what a window of 1 loads from it",
            mistakes={
                4: "SQLite kept all four, but the window still decides how many are sent: 1 interaction",
                0: "SQLite has no expiry; the night deleted nothing",
                1: "the window counts interactions, and one interaction is two messages",
            },
            why="the store kept her first thread, and a window of 1 sends its last interaction only",
            transfer="a smaller window on a store that outlives the night",
        ),
    ],
)
check = BOOK.check
