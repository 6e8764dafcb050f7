"""The ``windowmem`` command: what a window memory returns, and what each turn sends.

::

    windowmem window FILE --policy n8n --size 5 [--tokens qwen] [--after 12]
    windowmem replay FILE --policy n8n --size 5 [--tokens qwen] [--format table|json|csv]
    windowmem policies
    windowmem examples
    windowmem budget [CORPUS] --budget 1500 --policy compact  (see windowmem.budget.cli)

``window`` stores every message of FILE (system messages too: the policy decides what
to do with them) one at a time, up to the first ``--after`` messages, and prints what
the memory returns as JSON. ``replay`` prints, turn by turn, which earlier turns the
model sees and how many tokens each call is sent. ``--tokens`` picks the counter
(``messages``, ``words`` or ``qwen``): it sets the unit of token-limited policies and
the input tokens of a replay; without it a replay counts with the policy's own
counter, or one per message.

Every subcommand is a function from the parsed arguments to the text it prints, and
raises :class:`~windowmem.errors.WindowMemError` on bad input. Bad input (unknown
policy, a size that is not a whole number or that the policy refuses, a malformed
file, ``--after`` out of range) exits with status 2 and one line on stderr, and prints
nothing on stdout.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from windowmem.arguments import whole_number
from windowmem.conversation import Conversation, load_conversation
from windowmem.errors import WindowMemError
from windowmem.examples import example_names, example_path, load_example
from windowmem.policies.base import Memory, WindowPolicy
from windowmem.policies.registry import make_policy, options_of, policy_class, policy_infos
from windowmem.replay import iter_turn_views
from windowmem.tokens import COUNTER_NAMES, TokenCounter, count_messages, counter_by_name

#: Exit status for bad input, as argparse uses.
USAGE_ERROR = 2

#: How wide the user-message column of a replay table is.
TABLE_MESSAGE_WIDTH = 44


class CliUsageError(WindowMemError):
    """The command line itself is wrong: a missing or malformed argument."""


class _Parser(argparse.ArgumentParser):
    # argparse prints the usage and exits on a bad argument; the CLI wants one line on
    # stderr and a clean return from main(), also for the subcommands' parsers.
    def error(self, message: str) -> NoReturn:
        raise CliUsageError(message)


def _build_policy(
    name: str, size: int | None, tokens: str | None
) -> tuple[WindowPolicy, TokenCounter]:
    """The policy asked for, and the counter a replay should bill with."""
    counter = counter_by_name(tokens) if tokens is not None else None
    options: dict[str, Any] = {}
    # Only token-limited policies take a counter; for the others --tokens sets the bill's unit.
    if counter is not None and "counter" in options_of(policy_class(name)):
        options["counter"] = counter
    policy = make_policy(name, size, **options)
    if counter is None:
        counter = getattr(policy, "counter", None) or count_messages
    return policy, counter


def _load(path: str) -> Conversation:
    try:
        return load_conversation(path)
    except IsADirectoryError:
        raise WindowMemError(f"{path}: is a folder, not a conversation file") from None
    except PermissionError:
        raise WindowMemError(f"{path}: permission denied") from None


def _json(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def run_window(args: argparse.Namespace) -> str:
    """The text ``windowmem window`` prints."""
    conversation = _load(args.file)
    policy, _ = _build_policy(args.policy, args.size, args.tokens)
    total = len(conversation.messages)
    after = total if args.after is None else args.after
    if not 0 <= after <= total:
        raise WindowMemError(
            f"--after {after} is out of range: {args.file} has {total} messages, so use 0 to {total}"
        )
    memory = Memory(policy)
    for message in conversation.messages[:after]:
        memory.add(message)
    return _json([message.as_dict() for message in memory.load()])


def run_replay(args: argparse.Namespace) -> str:
    """The text ``windowmem replay`` prints."""
    # Only the table and CSV formats need pandas, which takes half a second to import.
    from windowmem.frames import replay_frame

    conversation = _load(args.file)
    policy, counter = _build_policy(args.policy, args.size, args.tokens)
    if args.format == "json":
        total = 0
        turns = []
        for view in iter_turn_views(conversation, policy, counter):
            total += view.input_tokens
            turns.append(
                {
                    "turn": view.turn,
                    "user_message": view.new_message.content
                    if view.new_message is not None
                    else None,
                    "visible_turns": list(view.visible_turns),
                    "partial_turns": list(view.partial_turns),
                    "evicted_turns": list(view.evicted_turns),
                    "messages_in_window": len(view.window),
                    "input_tokens": view.input_tokens,
                    "cumulative_input_tokens": total,
                    "sent": [m.as_dict() for m in view.sent],
                }
            )
        return _json(turns)
    frame = replay_frame(conversation, policy, counter)
    if args.format == "csv":
        buffer = io.StringIO()
        frame.to_csv(buffer, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        return buffer.getvalue()
    shown = frame.copy()
    shown["user message"] = [_shorten(text, TABLE_MESSAGE_WIDTH) for text in shown["user message"]]
    return shown.to_string(index=False) + "\n"


def _shorten(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def run_policies(args: argparse.Namespace) -> str:
    """The text ``windowmem policies`` prints: name, unit, default size and product, the
    superseded APIs, and each policy's package, version and source files."""
    rows = [
        (row.name, str(row.unit), _default_label(row.default_size), row.product)
        for row in policy_infos()
    ]
    header = ("name", "unit", "default", "product")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in [header, *rows]
    ]
    old = [row for row in policy_infos() if row.superseded]
    if old:
        lines += ["", "Superseded APIs (what their own projects tell users to use today):"]
        for row in old:
            instead = f" -> use {', '.join(row.use_instead)}" if row.use_instead else ""
            lines.append(f"  {row.name}: {row.superseded}{instead}")
    lines += [
        "",
        "Sources (the package and version each model was read and tested at, and its files):",
    ]
    for row in policy_infos():
        lines.append(f"  {row.name}: {', '.join(row.packages)}: {row.source}")
    return "\n".join(lines) + "\n"


def _default_label(size: int | None) -> str:
    # None is a product whose default is no window: everything stored is sent.
    return "none (all)" if size is None else str(size)


def run_examples(args: argparse.Namespace) -> str:
    """The text ``windowmem examples`` prints: each sample conversation's name, turns and file."""
    lines = [
        f"{name}\t{load_example(name).turn_count} turns\t{example_path(name)}"
        for name in example_names()
    ]
    return "\n".join(lines) + "\n"


def _add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", help='conversation JSON: a list of messages or {"messages": [...]}'
    )
    parser.add_argument(
        "--policy", required=True, metavar="NAME", help="a policy name (see `windowmem policies`)"
    )
    parser.add_argument(
        "--size",
        type=whole_number,
        default=None,
        metavar="N",
        help="window size in the policy's unit (default: the policy's default)",
    )
    parser.add_argument(
        "--tokens",
        choices=COUNTER_NAMES,
        default=None,
        help="token counter for token-limited policies and for input tokens",
    )


#: The ``budget`` subcommand's one-line help, listed by ``windowmem --help``.
BUDGET_HELP = "run the twelve-question task in a window of N tokens and print its bill"


def _names_budget(argv: Sequence[str] | None) -> bool:
    """True when *argv* (``sys.argv[1:]`` if None) runs ``budget``: its first word that is no option."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in words if not w.startswith("-")), None) == "budget"


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``windowmem`` argument parser with every subcommand.

    The token-budget task is the one heavy subcommand (it imports the whole task engine), so
    its arguments are loaded only when *argv* runs it; otherwise ``budget`` is listed with
    its help line and nothing else.
    """
    parser = _Parser(
        prog="windowmem",
        description="Exact models of AI-agent window memories, and what they cost.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    window = subparsers.add_parser(
        "window", help="what a policy's memory returns after storing a conversation"
    )
    _add_policy_arguments(window)
    window.add_argument(
        "--after",
        type=whole_number,
        default=None,
        metavar="M",
        help="store only the first M messages (default: all)",
    )
    window.set_defaults(func=run_window)

    replay = subparsers.add_parser(
        "replay", help="turn by turn: the turns the model sees and the tokens it is sent"
    )
    _add_policy_arguments(replay)
    replay.add_argument("--format", choices=("table", "json", "csv"), default="table")
    replay.set_defaults(func=run_replay)

    policies = subparsers.add_parser(
        "policies", help="list the policies with their unit and default size"
    )
    policies.set_defaults(func=run_policies)

    examples = subparsers.add_parser(
        "examples", help="list the sample conversations shipped with windowmem"
    )
    examples.set_defaults(func=run_examples)

    if _names_budget(argv):
        from windowmem.budget import cli as budget_cli

        budget_cli.register(subparsers, BUDGET_HELP)
    else:
        subparsers.add_parser("budget", help=BUDGET_HELP)
    return parser


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; 0 on success, 2 on bad input (one line on stderr, nothing on stdout)."""
    try:
        args = build_parser(argv).parse_args(argv)
        output: str = args.func(args)
    except WindowMemError as exc:
        print(f"windowmem: error: {_one_line(str(exc))}", file=sys.stderr)
        return USAGE_ERROR
    if output:
        sys.stdout.write(output)
        sys.stdout.flush()
    return 0
