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
    return {
        # Lucía's call carries an id; the advisor was built with its own default.
        "2a": advisor_conversation_id(
            {CONVERSATION_ID_KEY: "lucia-9"}, "1.1.5", default="support-desk"
        ),
        "2b": advisor_conversation_id({}, "1.1.5", default="support-desk"),
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
        "4a": node_key("Memory A") == node_key("Memory_A"),
        "4b": old_node == node_key("Memory B"),
    }


def _two_pauses() -> Any:
    # Between the sessions: 40 quiet minutes, one more message in her first thread, 40 more.
    events = desk.support_desk()
    first, rest = events[: len(desk.support_desk()) - 3], events[len(desk.support_desk()) - 3 :]
    script = [
        *first,
        desk.Pause(40),
        desk.Request(desk.MARTA, "m-1", "one more thing", "noted"),
        desk.Pause(40),
        *rest,
    ]
    run = desk.run_script(script, desk.TENANT_USER.template, "in-process")
    return next(call for call in run.calls if call.request.thread == "m-2")


def _check_5() -> dict[str, Any]:
    return {
        "5a": len(_marta_returns("in-process", "the agent restarts").window),
        "5b": len(_two_pauses().window),
        "5c": len(_marta_returns("sqlite", "a night passes (14 hours)").window),
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
            hint="the advisor reads the id from the call's context; what does this call's context hold?",
            mistakes={
                "support-desk": "the builder's id is only what the advisor falls back to; this call's context holds an id",
                "default": "that is the fallback of an advisor built without its own id, and this call needs no fallback",
                "chat_memory_conversation_id": "that is the name of the context entry, not the id stored in it",
            },
            why="the context holds an id, and the advisor uses it before any default",
            transfer="a call that does carry an id, on an advisor with its own default",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="with nothing in the context, the advisor needs an id from somewhere else: where was one set?",
            mistakes={
                "default": "that is the fallback when the builder sets nothing; this advisor was built with its own default",
                "": "the advisor never falls back to an empty id",
                "IllegalArgumentException": "the error came in 1.1.6; this service runs 1.1.5",
                "error": "the error came in 1.1.6; this service runs 1.1.5",
            },
            why="the fallback is the advisor's own default, whatever its builder set: still one id for every user",
            transfer="an advisor built with its own default",
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
            hint="clean both names the way typeVersion 1.4 does, then compare the keys",
            mistakes={
                False: "the names differ as typed, but look at what the cleaning does to the space"
            },
            why="the space becomes _, so both nodes add the same name and share one buffer",
            transfer="two memory nodes on one chat",
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
            hint="where does Simple Memory keep its buffers?",
            mistakes={
                4: "that holds for a store that outlives the process; where does Simple Memory keep its buffers?"
            },
            why="a restart empties the in-process map",
        ),
        Expectation(
            "5b",
            _check_5,
            hint="the hour counts from the last run that used the buffer; count every exchange stored",
            mistakes={
                0: "80 minutes passed in all, but the hour counts from the last run that used the buffer",
                4: "her extra message and its reply are in the buffer too",
                3: "count messages, not requests: each request stores her message and a reply",
            },
            why="her extra message reset the hour, so neither 40-minute silence reached it, and its exchange is stored too",
            transfer="another timing: two 40-minute silences with a message between",
        ),
        Expectation(
            "5c",
            _check_5,
            hint="does a row in a file have an expiry?",
            mistakes={
                0: "the hour belongs to Simple Memory's map; what does a night do to a file on disk?"
            },
            why="the SQLite file has no expiry, so a night changes nothing",
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
                "storage": "nothing deleted the history: the key and the process did not change",
                "scope": "the key was the same on every turn",
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
                "storage": "five minutes is far from the idle hour, and nothing restarted: the laptop's history is still stored",
            },
            why="the phone's browser made its own session id, a new key: the request read a new, empty history beside the old one",
            transfer="a second device, a case the lesson has not shown",
        ),
        Expectation(
            "7c",
            _check_7,
            hint="what does Simple Memory do with a buffer nobody used for more than an hour?",
            mistakes={
                "scope": "the session ids did not change, so the keys did not either",
                "window": "an empty history is not a window problem: there was nothing to window",
            },
            why="same ids, and only the customers silent for over an hour lost their history: the store deleted it",
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
