"""What a tool sub-workflow receives from an n8n agent: the inputs mapped to it, and nothing else.

Read in ``@n8n/n8n-nodes-langchain`` 2.41.1, node Call n8n Workflow Tool (``toolWorkflow``,
typeVersions 2 to 2.2, ``v2/utils/WorkflowToolService.js``):

* the arguments the model is asked to fill are the ``$fromAI()`` expressions in the
  node's parameters; with none, the model sends one text, ``query``;
* the sub-workflow is started with one item. When the node maps Workflow Inputs, the
  item is that mapping, evaluated: each ``$fromAI()`` field takes the model's value, and
  each fixed expression (``{{ $('When chat message received').item.json.sessionId }}``)
  its value in the parent workflow. With no inputs mapped the item is ``{"query": ...}``;
* nothing else goes along: not the agent's memory, not the conversation, not the system
  prompt. A Simple Memory inside the sub-workflow names its buffer after the
  sub-workflow's own id, so it finds no history even given the parent's session id;
* the tool's result reaches the parent as the JSON text of the sub-workflow's output
  items (:func:`tool_result_text`), and from n8n 2.3.0 that text is stored in the
  parent's memory as a tool message.

Expressions are read, not run: this module understands ``$fromAI('key', 'description',
'type')`` and ``$('Node name').item.json.field`` (or ``.first().json.field``), which is
what a tool's inputs hold in practice, and says so when it meets anything else.

>>> lookup = WorkflowTool.of("track_order", "wf-track", {
...     "order": "={{ $fromAI('order_number', 'The order to track') }}",
...     "session": "={{ $('When chat message received').item.json.sessionId }}",
... })
>>> [a.key for a in lookup.arguments]
['order_number']
>>> lookup.item({"order_number": "#6023"}, {"When chat message received": {"sessionId": "s-1"}})
{'order': '#6023', 'session': 's-1'}
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from windowmem.errors import WindowMemError
from windowmem.key_templates import lookup

#: ``$fromAI(`` with its quoted arguments: key, then optional description and type.
_FROM_AI = re.compile(
    r"""\$fromAI\(\s*(?P<args>(?:'[^']*'|"[^"]*"|`[^`]*`)(?:\s*,\s*(?:'[^']*'|"[^"]*"|`[^`]*`))*)\s*\)"""
)
_QUOTED = re.compile(r"""'([^']*)'|"([^"]*)"|`([^`]*)`""")
#: ``$('Node name').item.json.path`` or ``$('Node name').first().json.path``.
_NODE_FIELD = re.compile(
    r"""\$\(\s*(?:'(?P<sq>[^']+)'|"(?P<dq>[^"]+)")\s*\)\s*\.\s*(?:item|first\(\s*\))\s*\.\s*json(?P<path>(?:\.[A-Za-z_$][\w$]*|\[[^\]]+\])+)"""
)
_EXPRESSION = re.compile(r"\{\{\s*(.*?)\s*\}\}", re.S)


@dataclass(frozen=True, slots=True)
class FromAI:
    """One ``$fromAI()`` argument: the *key* the model fills, its *description* and *type*."""

    key: str
    description: str = ""
    type: str = "string"


def from_ai_arguments(expression: str) -> tuple[FromAI, ...]:
    """The ``$fromAI()`` arguments an expression asks the model for, in order.

    >>> from_ai_arguments("={{ $fromAI('city', 'Where to ship', 'string') }}")
    (FromAI(key='city', description='Where to ship', type='string'),)
    >>> from_ai_arguments("={{ $('Chat').item.json.sessionId }}")
    ()
    """
    found = []
    for match in _FROM_AI.finditer(expression):
        values = [
            next(g for g in q.groups() if g is not None) for q in _QUOTED.finditer(match["args"])
        ]
        if len(values) > 3:
            raise WindowMemError(
                f"{match.group(0)}: only key, description and type are modelled; "
                "drop the default value"
            )
        key = values[0]
        description = values[1] if len(values) > 1 else ""
        kind = values[2] if len(values) > 2 else "string"
        if not key.strip():
            raise WindowMemError(
                f"{match.group(0)}: the key is empty; name the value, e.g. 'order_number'"
            )
        found.append(FromAI(key, description, kind))
    return tuple(found)


def _node_field(expression: str, nodes: Mapping[str, Any]) -> Any:
    match = _NODE_FIELD.fullmatch(expression.strip())
    if match is None:
        raise WindowMemError(
            f"cannot read the expression {{{{ {expression} }}}}: this model understands "
            "$fromAI('key', ...) and $('Node name').item.json.field"
        )
    node = match["sq"] or match["dq"]
    if node not in nodes:
        known = ", ".join(repr(n) for n in nodes) or "none"
        raise WindowMemError(
            f"the expression reads node {node!r}, which has no output here (nodes given: {known})"
        )
    return lookup(nodes[node], match["path"].lstrip("."))


def evaluate(parameter: Any, arguments: Mapping[str, Any], nodes: Mapping[str, Any]) -> Any:
    """The value a tool parameter takes: fixed text as it is, an ``=``-expression evaluated.

    *arguments* are the model's values for the ``$fromAI()`` keys; *nodes* maps a node's
    name to its output item's JSON. An expression that is one ``{{ }}`` keeps its
    value's type; text around ``{{ }}`` makes the result text.

    >>> evaluate("={{ $fromAI('qty', '', 'number') }}", {"qty": 2}, {})
    2
    >>> evaluate("=order {{ $fromAI('n') }}", {"n": "#6023"}, {})
    'order #6023'
    >>> evaluate("support", {}, {})
    'support'
    """
    if not isinstance(parameter, str) or not parameter.startswith("="):
        return parameter
    text = parameter[1:]

    def value_of(inner: str) -> Any:
        asked = from_ai_arguments("{{ " + inner + " }}")
        if asked:
            if _FROM_AI.fullmatch(inner.strip()) is None:
                raise WindowMemError(
                    f"{{{{ {inner} }}}}: put $fromAI() alone inside its {{{{ }}}}, not in a larger expression"
                )
            key = asked[0].key
            if key not in arguments:
                raise WindowMemError(
                    f"the model gave no value for $fromAI key {key!r}: pass it in the arguments"
                )
            return arguments[key]
        return _node_field(inner, nodes)

    whole = _EXPRESSION.fullmatch(text.strip())
    if whole is not None:
        return value_of(whole.group(1))
    return _EXPRESSION.sub(lambda m: _as_text(value_of(m.group(1))), text)


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return js_json(value)


def js_json(value: Any) -> str:
    """*value* as JavaScript's ``JSON.stringify`` writes it: no spaces, whole floats without ``.0``.

    >>> js_json([{"sku": "ZAP-114", "stock": 4.0, "ok": True}])
    '[{"sku":"ZAP-114","stock":4,"ok":true}]'
    """

    def plain(item: Any) -> Any:
        if isinstance(item, float):
            if math.isnan(item) or math.isinf(item):
                return None  # JSON.stringify writes NaN and Infinity as null
            return int(item) if item.is_integer() else item
        if isinstance(item, Mapping):
            return {str(k): plain(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [plain(v) for v in item]
        return item

    return json.dumps(plain(value), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class WorkflowTool:
    """A Call n8n Workflow Tool: its *name*, the sub-workflow it runs, and its Workflow Inputs mapping."""

    name: str
    workflow_id: str
    inputs: tuple[tuple[str, Any], ...] = ()
    """(field, parameter) pairs: a parameter is fixed text or an ``=``-expression."""

    @classmethod
    def of(
        cls, name: str, workflow_id: str, inputs: Mapping[str, Any] | None = None
    ) -> WorkflowTool:
        """A tool from a mapping of the sub-workflow's input fields to parameters."""
        if not isinstance(name, str) or not name:
            raise WindowMemError("a tool needs a name, e.g. 'track_order'")
        if not isinstance(workflow_id, str) or not workflow_id:
            raise WindowMemError(f"tool {name!r} needs the id of the workflow it calls")
        pairs = tuple((inputs or {}).items())
        if not all(isinstance(field, str) and field for field, _ in pairs):
            raise WindowMemError(f"tool {name!r}: every input field needs a name (text)")
        tool = cls(name, workflow_id, pairs)
        tool.arguments  # noqa: B018 - reads every $fromAI() now, so a bad one fails here
        return tool

    @property
    def arguments(self) -> tuple[FromAI, ...]:
        """What the model is asked to fill: every ``$fromAI()`` of the inputs, each key once.

        Empty means the model sends a single text, ``query``.
        """
        seen: dict[str, FromAI] = {}
        for _, parameter in self.inputs:
            if isinstance(parameter, str):
                for argument in from_ai_arguments(parameter):
                    seen.setdefault(argument.key, argument)
        return tuple(seen.values())

    def item(
        self, arguments: Mapping[str, Any] | str, nodes: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The one item the sub-workflow receives, given the model's *arguments*.

        *nodes* holds the output of the parent's nodes that fixed expressions read.
        Nothing from the agent's memory or the conversation is, or can be, in it.

        >>> WorkflowTool.of("faq", "wf-faq").item("opening hours in Bogotá")
        {'query': 'opening hours in Bogotá'}
        """
        nodes = nodes or {}
        if not self.inputs:
            if isinstance(arguments, Mapping):
                return dict(arguments)
            return {"query": arguments}
        if isinstance(arguments, str):
            if self.arguments:
                raise WindowMemError(
                    f"tool {self.name!r} asks the model for {', '.join(a.key for a in self.arguments)}: "
                    "pass the model's arguments as a dict"
                )
            arguments = {}
        unknown = sorted(set(arguments) - {a.key for a in self.arguments})
        if unknown:
            raise WindowMemError(
                f"tool {self.name!r} has no $fromAI key {', '.join(map(repr, unknown))}: "
                f"it asks for {', '.join(a.key for a in self.arguments) or 'none'}"
            )
        return {field: evaluate(parameter, arguments, nodes) for field, parameter in self.inputs}


def tool_result_text(output_items: list[Mapping[str, Any]]) -> str:
    """The text the agent gets back from a sub-workflow: its output items' JSON, as one array.

    >>> tool_result_text([{"status": "in transit"}])
    '[{"status":"in transit"}]'
    """
    if not isinstance(output_items, list) or not all(isinstance(i, Mapping) for i in output_items):
        raise WindowMemError("a sub-workflow's output is a list of items, each a JSON object")
    return js_json(output_items)


__all__ = [
    "FromAI",
    "WorkflowTool",
    "evaluate",
    "from_ai_arguments",
    "js_json",
    "tool_result_text",
]
