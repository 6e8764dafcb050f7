"""Lesson 1's hidden-test support (the judge loads it; students never receive it).

Part B's platforms: the requests a platform's fields make, a key template rendered on them,
the rules that say whether a template keeps every customer's history apart (``_meets``),
the template lesson 1's rules choose (``_choose``, with the misreadings the cases tell
apart) and the cause a seeded case is drawn for (``_cause_of``).
"""

# the hidden tests' one seeded generator (autograder/judge/seeded.py), shared by every assignment
from autograder.judge.seeded import chooser as _chooser

_type = (0).__class__.__class__

_str, _int, _bool, _list, _dict = (
    "".__class__,
    (0).__class__,
    True.__class__,
    [].__class__,
    {}.__class__,
)


def _requests(platform):
    """Every request of a small class on *platform*, as (customer, ticket, login, request): two
    shops, customers 1, 2, 11 and 12 of each (accounts unique on the platform), tickets 1, 2 and
    12 of each, three messages a ticket, over two logins. Each field gets what it holds, numbered
    in its own scope; a field the page copies from the profile is "" on a ticket's first message."""
    _out, _n = [], 0
    for _s, _shop in enumerate(("andina", "tutienda")):
        for _user in (1, 2, 11, 12):
            for _t in (1, 2, 12):
                for _msg in (1, 2, 3):
                    _n += 1
                    _login = 1 if _msg < 3 else 2  # the third message comes after the next login
                    _value = {
                        ("shop", "platform"): _shop,
                        ("customer", "shop"): _user,
                        ("customer", "platform"): 1000 * (_s + 1) + _user,  # the platform's account
                        ("ticket", "customer"): _t,
                        ("ticket", "shop"): 100 * _user + _t,  # the shop's ticket counter
                        ("ticket", "platform"): f"tk{_s}x{_user}x{_t}",  # a random id, made once
                        ("message", None): f"m{_n}",
                        ("request", None): f"r{_n}",
                        ("login", None): f"l{_s}x{_user}x{_login}",
                    }
                    _request = {}
                    for _path, _f in platform["fields"].items():
                        _v = _value[(_f["holds"], _f["unique_in"])]
                        if _f["set_by"] == "profile" and _msg == 1:
                            _v = ""
                        _where = _request
                        for _name in _path.split(".")[:-1]:
                            _where = _where.setdefault(_name, {})
                        _where[_path.split(".")[-1]] = _v
                    _out.append(((_shop, _user), (_shop, _user, _t), _request))
    return _out


_CLIENT = ("page", "profile", "header", "echo")


def _render(template, request):
    # the key text a template gives (A1's syntax); every field here is present, "" when empty
    _out, _rest = [], template
    while "{{" in _rest:
        _before, _, _after = _rest.partition("{{")
        _path, _, _rest = _after.partition("}}")
        _value = request
        for _name in _path.strip().split("."):
            if _type(_value) is not _dict or _name not in _value:
                return None  # a field the platform does not have
            _value = _value[_name]
        _out += [_before, _str(_value)]
    return "".join(_out) + _rest


def _meets(template, platform):
    """Whether *template* gives the owners all three things on *platform*: one history per unit
    (ticket or customer) over all its messages and logins, no two units in one history, and no
    customer who rewrites what the browser sends reaching another customer's history."""
    _reqs = _requests(platform)
    _unit = (lambda _c, _t: _t) if platform["history"] == "ticket" else (lambda _c, _t: _c)
    _keys, _owner = {}, {}
    for _c, _t, _r in _reqs:
        _k = _render(template, _r)
        if _k is None or _k == "":
            return False
        _keys.setdefault(_unit(_c, _t), set()).add(_k)
        _owner.setdefault(_k, set()).add(_c)
    if any(len(_v) != 1 for _v in _keys.values()):
        return False  # one unit's messages in two histories
    _seen = {}
    for _u, _v in _keys.items():
        if _seen.setdefault(next(iter(_v)), _u) != _u:
            return False  # two units in one history
    _client = [_p for _p, _f in platform["fields"].items() if _f["set_by"] in _CLIENT]
    _victims = {}
    for _c, _t, _r in _reqs:
        _victims.setdefault(_c, []).append(_r)
    for _c, _t, _r in _reqs[1::9]:  # each customer's second message, as the attacker's
        for _v, _their in _victims.items():
            if _v == _c:
                continue
            for _vr in _their[1::3]:  # the victim's fields, copied into what the browser sends
                _forged = {_a: (dict(_b) if _type(_b) is _dict else _b) for _a, _b in _r.items()}
                for _p in _client:
                    _src, _dst = _vr, _forged
                    for _name in _p.split(".")[:-1]:
                        _src, _dst = _src[_name], _dst[_name]
                    _dst[_p.split(".")[-1]] = _src[_p.split(".")[-1]]
                if _owner.get(_render(template, _forged), {_c}) - {_c}:
                    return False
    return True


def _choose(platform, misread=()):
    """The key template lesson 1's rules give for *platform*, or None when no template is safe,
    written out here, never taken from the notebook. *misread* names readings the cases are
    chosen to tell apart from the rules: "header trusted" (a field the gateway copies from the
    page is the gateway's), "ticket always" and "shop always" (the lesson's composite, a ticket
    and a shop whatever the owners want and whoever numbers the customers), "a key for everyone"
    (some key even without a checked customer), "unique ticket enough" (a ticket id unique on
    the platform needs no customer)."""
    _f = platform["fields"]
    _trusted = ("gateway", "header") if "header trusted" in misread else ("gateway",)

    def _of(_holds, _by):
        return [_p for _p, _d in _f.items() if _d["holds"] == _holds and _d["set_by"] in _by]

    _any = ("gateway", "header", "page", "profile", "echo")
    _tickets = _of("ticket", _any)
    if "unique ticket enough" in misread and platform["history"] == "ticket":
        _alone = [_p for _p in _tickets if _f[_p]["unique_in"] == "platform"]
        if _alone:
            return "{{ " + _alone[0] + " }}"
    _customers = _of("customer", _trusted)
    _shops = _of("shop", _trusted)
    _wide = [_p for _p in _customers if _f[_p]["unique_in"] == "platform"]
    _parts = _wide[:1] or (_shops[:1] + _customers[:1] if _customers and _shops else None)
    if _parts and "shop always" in misread and not (set(_parts) & set(_shops)):
        _parts = (_shops or _of("shop", _any))[:1] + _parts
    _with_ticket = platform["history"] == "ticket" or "ticket always" in misread
    if _parts is None and "a key for everyone" in misread:
        _parts = _of("shop", _any)[:1] + (_of("customer", _any)[-1:])
    if not _parts:
        return None
    if _with_ticket:
        _parts = _parts + _tickets[:1]
    return ":".join("{{ " + _p + " }}" for _p in _parts)


def _right(answer, platform):
    # None is right exactly where no template is safe; a template is right when it meets all three
    if _choose(platform) is None:
        return answer is None
    return _type(answer) is _str and _meets(answer, platform)


def _cause_of(case, misread=()):
    """The first mechanism that lost the fact (key, then store, then window), by lesson 1's rules,
    written out here, never taken from the notebook; None when the fact arrives.

    *misread* names readings the cases are chosen to tell apart from the rules: "hosted default"
    (every widget starts Off), "one browser" (another browser shares the tab's id), "one map"
    (queue-mode workers share Simple Memory), "an hour is gone" (60 minutes idle deletes),
    "no default window" (a window left at its default sends everything).
    """
    # @n8n/chat 1.37.0: the stored id is reused only with Load Previous Session on; the hosted
    # page leaves it Off, createChat on; the id lives in one browser profile's local storage
    _on = case["load_previous_session"]
    if _on is None:
        _on = case["chat"] == "embedded" and "hosted default" not in misread
    _reopened = ("reload", "new tab") + (("other browser",) if "one browser" in misread else ())
    _same_id = case["between"] in ("nothing", "restart") or (case["between"] in _reopened and _on)
    # Simple Memory 2.41.1: one map per n8n process, emptied by a restart; a history unused for
    # more than 60 minutes is deleted before it is read
    _idle = (
        case["quiet_minutes"] >= 60 if "an hour is gone" in misread else case["quiet_minutes"] > 60
    )
    _moved = case["workers"] == 2 and not case["same_worker"] and "one map" not in misread
    _gone = case["store"] == "in-process" and (case["between"] == "restart" or _idle or _moved)
    _window = case["window"]
    if _window is None:  # left at Simple Memory's default Context Window Length
        _window = 0 if "no default window" in misread else 5
    _old = _window != 0 and case["turns_ago"] > _window
    for _cause, _lost in (("scope", not _same_id), ("storage", _gone), ("window", _old)):
        if _lost:
            return _cause
    return None


_TEMPLATE_MISREADINGS = ("header trusted", "ticket always", "unique ticket enough", "shop always",
                "header trusted", "a key for everyone", "ticket always", "shop always")


def _platforms(seed, count):
    """*count* platforms from a seeded space, each one that at least two misreadings get wrong,
    among them the one _TEMPLATE_MISREADINGS names in turn (where understanding the rule matters); no safe
    key exists only in the cases of "a key for everyone", one in eight."""
    _draw, _out = _chooser(seed), []

    while len(_out) < count:
        _fields = {}
        _customer = _draw((None, "shop", "shop", "platform"))
        if _customer:
            _fields[_draw(("auth.user", "auth.customer")) if _customer == "shop" else "auth.account"] = {
                "holds": "customer", "set_by": "gateway", "unique_in": _customer}
        _gateway_shop = _draw(("auth.shop", "auth.tenant", None))
        _header_shop = _draw(("auth.shop", "headers.x-shop", None))
        for _path, _by in ((_gateway_shop, "gateway"), (_header_shop, "header")):
            if _path and _path not in _fields:
                _fields[_path] = {"holds": "shop", "set_by": _by, "unique_in": "platform"}
        if _draw((True, True, False)):
            _fields["body.shopId"] = {"holds": "shop", "set_by": "profile", "unique_in": "platform"}
            _fields["body.userId"] = {"holds": "customer", "set_by": "profile", "unique_in": "shop"}
        for _path, _scope in _draw(((("body.ticket", "customer"),), (("body.ticket", "shop"),),
                                    (("body.ticketId", "platform"),),
                                    (("body.ticket", "customer"), ("body.ticketId", "platform")))):
            _fields[_path] = {"holds": "ticket", "set_by": "page" if _scope != "platform" else "echo", "unique_in": _scope}
        _fields["body.message"] = {"holds": "message", "set_by": "page", "unique_in": None}
        if _draw((True, False)):
            _fields["auth.request"] = {"holds": "request", "set_by": "gateway", "unique_in": None}
        if _draw((True, False, False)):
            _fields["auth.login"] = {"holds": "login", "set_by": "gateway", "unique_in": None}
        _order = sorted(_fields, key=lambda _p: _draw((0, 1, 2, 3, 4, 5, 6, 7)))  # no telling order
        _platform = {"history": _draw(("ticket", "ticket", "customer")), "fields": {_p: _fields[_p] for _p in _order}}
        _misreading = _TEMPLATE_MISREADINGS[len(_out) % len(_TEMPLATE_MISREADINGS)]
        # no safe key only where that is the point: one case in eight
        _none = _choose(_platform) is None
        _wrong = [_m for _m in ("header trusted", "ticket always", "shop always", "a key for everyone", "unique ticket enough") if not _right(_choose(_platform, (_m,)), _platform)]
        if _none == (_misreading == "a key for everyone") and _misreading in _wrong and len(_wrong) >= 2:
            _out.append(_platform)
    return _out


_CAUSE_MISREADINGS = ("hosted default", "one browser", "one map", "an hour is gone", "no default window")


def _diagnosis_cases(seed, count):
    """*count* cases from a seeded space of help desks, the causes in turn, each one a case
    that one of _CAUSE_MISREADINGS gets wrong (where understanding the rule matters)."""
    _draw, _out = _chooser(seed), []

    while len(_out) < count:
        _workers = _draw((1, 2, 2))
        _case = {
            "chat": _draw(("hosted", "embedded")),
            "load_previous_session": _draw((None, None, True, False)),
            "between": _draw(("nothing", "reload", "new tab", "other browser", "restart")),
            "store": _draw(("in-process", "in-process", "sqlite")),
            "workers": _workers,
            "same_worker": True if _workers == 1 else _draw((True, False)),
            "quiet_minutes": _draw((5, 30, 45, 59, 60, 61, 90, 600)),
            "others_wrote": _draw((True, False)),
            "window": _draw((None, None, 0, 1, 2, 3, 10)),
            "turns_ago": _draw((1, 2, 3, 4, 5, 6, 8, 11)),
        }
        _want = _cause_of(_case)
        _telling = any(_cause_of(_case, (_m,)) != _want for _m in _CAUSE_MISREADINGS)
        if _want == ("scope", "storage", "window")[len(_out) % 3] and _telling:
            _out.append(_case)
    return _out
