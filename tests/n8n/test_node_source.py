"""What the lessons state from n8n 2.41.1's node code, checked against the installed package.

Some facts a lesson states cannot be shown by running a workflow through the recording
model (what the editor offers, an option's default, the hosted chat page's script). They
are read here from the same n8n 2.41.1 that ``tests/n8n/test_live.py`` runs, installed by
``verify/n8n/install.sh``, and the lesson's sentence is checked to be there. Under CI
(``CI=true``) a missing install fails the test instead of skipping it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import skip_or_fail
from verify.n8n.instance import n8n_home

REPO = Path(__file__).resolve().parents[2]
VERSION = "2.41.1"


def package(name: str) -> Path:
    """The installed npm package *name* of n8n's install, at the version the lessons name."""
    folder = n8n_home() / "app" / "node_modules" / name
    if not (folder / "package.json").is_file():
        skip_or_fail(f"n8n {VERSION} is not installed in {n8n_home()} (make install-n8n)")
    version = json.loads((folder / "package.json").read_text())["version"]
    assert version == VERSION, f"{name} {version} installed; the lessons state {VERSION}"
    return folder


def lesson_text(notebook: str) -> str:
    """A lesson's (or a reference page's, ``reference/...``) markdown, its line breaks joined."""
    cells = json.loads((REPO / "course" / notebook).read_text(encoding="utf-8"))["cells"]
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.sub(r"\s+", " ", markdown)


def chat_trigger() -> str:
    folder = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "trigger" / "ChatTrigger"
    return (folder / "ChatTrigger.node.js").read_text(encoding="utf-8")


def test_the_chat_trigger_has_a_memory_input_only_when_it_loads_sessions_from_memory():
    source = chat_trigger()
    inputs = re.search(r"inputs: `=\{\{ \(\(\) => \{(.*?)\}\)\(\) \}\}`", source, re.S)
    assert inputs, "the Chat Trigger's inputs expression moved"
    body = inputs.group(1)
    # no input at all outside hosted chat and webhook mode, or without From Memory
    assert re.search(
        r"if \(!\['hostedChat', 'webhook'\]\.includes\(\$parameter\.mode\)\) \{\s*return \[\];",
        body,
    )
    assert re.search(
        r"if \(\$parameter\.options\?\.loadPreviousSession !== 'memory'\) \{\s*return \[\];", body
    )
    assert "AiMemory" in body or "ai_memory" in body
    text = lesson_text("reference/02_with_and_without_memory_notes.ipynb")
    assert "*Load Previous Session* set to *From Memory*" in text


def test_an_output_parser_adds_a_system_message_even_without_the_option():
    """Lesson 2's reference page, as windowmem.calls.system_prompt models prepareMessages."""
    common = (
        package("@n8n/n8n-nodes-langchain")
        / "dist"
        / "nodes"
        / "agents"
        / "Agent"
        / "agents"
        / "ToolsAgent"
    )
    source = (common / "common.js").read_text(encoding="utf-8")
    assert "const useSystemMessage = options.systemMessage ?? ctx.getNode().typeVersion < 1.9;" in (
        source
    )
    # with a System Message: the instructions after it; without one: a system message of their own
    assert re.search(
        r"if \(useSystemMessage\) \{\s*messages\.push\(\[\s*'system',\s*"
        r"`\{system_message\}\$\{options\.outputParser \? '\\n\\n\{formatting_instructions\}' : ''\}`",
        source,
    )
    assert re.search(
        r"else if \(options\.outputParser\) \{\s*messages\.push\(\['system', '\{formatting_instructions\}'\]\);",
        source,
    )
    prompt = (common / "prompt.js").read_text(encoding="utf-8")
    from windowmem.calls.system_prompt import DEFAULT_SYSTEM_MESSAGE, NO_DEFAULT_FROM

    assert f"exports.SYSTEM_MESSAGE = '{DEFAULT_SYSTEM_MESSAGE}';" in prompt
    # ... which is also the text the option holds when it is added
    options = (common / "options.js").read_text(encoding="utf-8")
    assert re.search(
        r"name: 'systemMessage',\s*type: 'string',\s*default: prompt_1\.SYSTEM_MESSAGE", options
    )
    assert NO_DEFAULT_FROM == 1.9
    notes = lesson_text("reference/02_with_and_without_memory_notes.ipynb")
    assert (
        "an output parser adds a system message from typeVersion 1.9, even without the option"
        in (notes)
    )


def test_message_an_assistant_reads_a_memory_before_1_6_and_by_default_after():
    operation = (
        package("@n8n/n8n-nodes-langchain")
        / "dist"
        / "nodes"
        / "vendors"
        / "OpenAi"
        / "v1"
        / "actions"
        / "assistant"
        / "message.operation.js"
    ).read_text(encoding="utf-8")
    assert re.search(r"const memory = useMemoryConnector \|\| nodeVersion < 1\.6", operation)
    field = re.search(r"displayName: 'Memory',.*?default: '(\w+)'", operation, re.S)
    assert field and field.group(1) == "connector"
    from windowmem.calls.system_prompt import ASSISTANT_MEMORY_CHOICES, ASSISTANT_MEMORY_FIELD_FROM

    assert ASSISTANT_MEMORY_FIELD_FROM == 1.6
    for label, value in zip(ASSISTANT_MEMORY_CHOICES, ("connector", "threadId"), strict=True):
        assert re.search(rf"name: '{label}',\s*value: '{value}'", operation, re.I), label
    notes = lesson_text("reference/02_with_and_without_memory_notes.ipynb")
    assert "**before 1.6 it always reads it**" in notes


def test_the_chat_memory_manager_inserts_messages():
    """Lesson 2's fix for a failed run: the Chat Memory Manager's Insert Messages mode."""
    folder = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "memory" / "MemoryManager"
    source = (folder / "MemoryManager.node.js").read_text(encoding="utf-8")
    for mode, value in (
        ("Get Many Messages", "load"),
        ("Insert Messages", "insert"),
        ("Delete Messages", "delete"),
    ):
        assert re.search(rf"name: '{mode}',.*?value: '{value}'", source, re.S), mode
    # Each inserted message's type: AI, System (the default) or User, as the lesson's repair says.
    types = re.search(r"displayName: 'Type Name or ID',.*?default: '(\w+)'", source, re.S)
    assert types and types.group(1) == "system"
    names = re.findall(r"name: '(\w+)',\s*value: '(\w+)'", types.group(0))
    assert names == [("AI", "ai"), ("System", "system"), ("User", "user")]
    lesson = lesson_text("02_with_and_without_memory.ipynb")
    assert "**Chat Memory Manager**" in lesson and "set to *Insert Messages*" in lesson
    assert (
        "type **User** and an answer with type **AI**" in lesson
        and "starts at **System**" in lesson
    )


def test_the_hosted_chat_page_reuses_a_session_only_when_load_previous_session_is_set():
    source = chat_trigger()
    option = re.search(r"name: 'loadPreviousSession',.*?default: '(\w+)'", source, re.S)
    assert option and option.group(1) == "notSupported"  # shown as Off in the editor
    templates = (
        package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "trigger" / "ChatTrigger"
    ) / "templates.js"
    page = templates.read_text(encoding="utf-8")
    assert "loadPreviousSession: ${sanitizedLoadPreviousSession !== 'notSupported'}" in page
    # the three options and their saved values, as windowmem models them
    from windowmem.policies.n8n.session_ids import LOAD_PREVIOUS_SESSION

    for label, value in LOAD_PREVIOUS_SESSION.items():
        assert re.search(rf"name: '{label}',\s*value: '{value}'", source), (label, value)
    notes = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    assert "*Load Previous Session* field, whose default is **Off**" in notes
    assert "both **From Memory** and **Manually** turn it on" in notes
    lesson = lesson_text("01_scope_and_storage.ipynb")
    assert "**From Memory** and **Manually** both reuse the id" in lesson


def test_edit_fields_passes_on_only_the_fields_it_sets_by_default():
    base = package("n8n-nodes-base") / "dist" / "nodes" / "Set"
    versioned = (base / "Set.node.js").read_text(encoding="utf-8")
    assert re.search(r"defaultVersion: 3\.\d", versioned), (
        "a new Edit Fields node is a v2 class one"
    )
    setv2 = (base / "v2" / "SetV2.node.js").read_text(encoding="utf-8")
    option = re.search(r"name: 'includeOtherFields',\s*type: 'boolean',\s*default: (\w+)", setv2)
    assert option and option.group(1) == "false"
    text = lesson_text("01_scope_and_storage.ipynb")
    assert "By default Edit Fields passes on only the fields it sets" in (
        text + " " + _code_comments("01_scope_and_storage.ipynb")
    )


def _code_comments(notebook: str) -> str:
    cells = json.loads((REPO / "course" / notebook).read_text(encoding="utf-8"))["cells"]
    return " ".join(
        line.lstrip("# ").strip()
        for c in cells
        if c["cell_type"] == "code"
        for line in "".join(c["source"]).splitlines()
        if line.lstrip().startswith("#")
    )


#: The chat widget's version lesson 1 reads (kept by verify/n8n/install.sh as npm packs it).
CHAT_VERSION = "1.37.0"


def test_the_embedded_chat_widget_reuses_its_session_by_default():
    import tarfile

    tarball = n8n_home() / f"n8n-chat-{CHAT_VERSION}.tgz"
    if not tarball.is_file():
        skip_or_fail(f"@n8n/chat {CHAT_VERSION} is not kept in {n8n_home()} (make install-n8n)")
    with tarfile.open(tarball) as archive:
        manifest = json.load(archive.extractfile("package/package.json"))
        widget = archive.extractfile("package/dist/chat.es.js").read().decode("utf-8")
    assert manifest["version"] == CHAT_VERSION
    # createChat's default options: the object that starts with the local webhook address
    defaults = re.search(r'webhookUrl: "http://localhost:5678",(.*?)\n\}', widget, re.S)
    assert defaults, "createChat's default options moved"
    assert re.search(r"\bloadPreviousSession: (!0|true),", defaults.group(1))
    text = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    assert f"`@n8n/chat` {CHAT_VERSION}" in text and "the widget's default is **on**" in text


def test_the_anthropic_chat_model_caches_prompts_only_when_its_option_is_set():
    """Lesson 3's Claude column assumes the node's Prompt Caching option on: it is off by default,
    and set, it marks the request with one cache_control of the chosen lifetime."""
    folder = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "llms" / "LMChatAnthropic"
    source = (folder / "LmChatAnthropic.node.js").read_text(encoding="utf-8")
    option = re.search(
        r"displayName: 'Prompt Caching',\s*name: 'promptCaching',\s*type: 'options',\s*"
        r"default: '(\w+)',.*?options: \[(.*?)\]",
        source,
        re.S,
    )
    assert option, "the Anthropic Chat Model's Prompt Caching option moved"
    assert option.group(1) == "disabled"
    choices = re.findall(r"name: '([^']+)', value: '([^']+)'", option.group(2))
    assert choices == [("Disabled", "disabled"), ("5 Minutes", "5m"), ("1 Hour", "1h")]
    assert re.search(
        r"if \(options\.promptCaching && options\.promptCaching !== 'disabled'\) \{\s*"
        r"invocationKwargs\.cache_control = \{\s*type: 'ephemeral',\s*ttl: options\.promptCaching,",
        source,
    )
    lesson = lesson_text("03_window_buffer_memory.ipynb")
    assert "*Prompt Caching* option on. It is off by default" in lesson
    notes = lesson_text("reference/03_window_buffer_memory_notes.ipynb")
    assert "Disabled (the default), 5 Minutes or 1 Hour" in notes


def test_simple_memorys_help_text_counts_interactions():
    """Lesson 3's reference page quotes Context Window Length's help text, which tool turns make
    untrue."""
    folder = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "memory"
    source = (folder / "descriptions.js").read_text(encoding="utf-8")
    hint = "How many past interactions the model receives as context"
    assert re.search(r"displayName: 'Context Window Length',.*?hint: '" + hint + "'", source, re.S)
    quoted = hint.removesuffix(" the model receives as context")  # the lesson quotes its start
    assert f'whatever the field\'s help text ("{quoted}") says' in lesson_text(
        "reference/03_window_buffer_memory_notes.ipynb"
    )


def test_a_nodes_settings_tab_names_its_type_version():
    """Lessons 2 and 3's version boxes: the foot of a node's Settings tab reads
    "<node> node version <v>"."""
    package("n8n")  # the install the lessons state; its editor is the n8n-editor-ui it ships
    assets = n8n_home() / "app" / "node_modules" / "n8n-editor-ui" / "dist" / "assets"
    if not assets.is_dir():
        skip_or_fail(f"n8n's editor is not installed in {assets}")
    source = "\n".join(p.read_text(encoding="utf-8") for p in assets.glob("*.js"))
    assert '"nodeSettings.nodeVersion":`{node} node version {version}`' in source
    assert re.search(
        r"baseText\(`nodeSettings\.nodeVersion`,\{interpolate:\{node:\w+\.value\?\.displayName,"
        r"version:\(\w+\.value\.typeVersion",
        source,
    )
    assert re.search(r"\[\[\w+,\w+\.value===`settings`\]\]", source)
    lesson = lesson_text("03_window_buffer_memory.ipynb").replace(" > ", " ")  # the box's quotes
    assert '*Settings* tab reads "AI Agent node version 3.1": its **typeVersion**' in lesson
    lesson_2 = lesson_text("02_with_and_without_memory.ipynb")
    assert "*Settings* tab ends with its typeVersion" in lesson_2
    assert '("AI Agent node version 3.1")' in lesson_2


def test_the_default_session_id_option_reads_the_item_then_falls_back_to_a_chat_trigger():
    """Lesson 1's rule: the default option reads ``sessionId`` from the item the agent receives,
    whatever node put it there, and tries the workflow's Chat Trigger only when that is empty."""
    helpers = package("@n8n/n8n-nodes-langchain") / "dist" / "utils" / "helpers.js"
    source = helpers.read_text(encoding="utf-8")
    body = re.search(r"function getSessionId\(.*?\n\}\n", source, re.S)
    assert body, "getSessionId moved"
    code = body.group(0)
    item = code.index("ctx.evaluateExpression('{{ $json.sessionId }}', itemIndex)")
    fallback = code.index("const chatTrigger = ctx.getChatTrigger();")
    stop = code.index("'No session ID found'")
    assert item < fallback < stop
    assert re.search(r"\$\('\$\{chatTrigger\.name\}'\)\.first\(\)\.json\.sessionId", code)
    lesson = lesson_text("01_scope_and_storage.ipynb")
    assert "reads `sessionId` at the top of the item the agent receives, whatever node put it" in (
        lesson
    )
    assert "it tries the workflow's Chat Trigger, if there is one; failing that" in lesson
    notes = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    assert 'The default option, "Connected Chat Trigger Node", needs no Chat Trigger.' in notes


def test_the_forge_proof_key_recipe_names_what_n8n_offers():
    """Lesson 1's Going further recipe: the Webhook's Header Auth, the If node's "is not empty",
    and the AI Agent reading the message from ``chatInput`` by default."""
    webhook = package("n8n-nodes-base") / "dist" / "nodes" / "Webhook" / "description.js"
    assert re.search(r"name: 'Header Auth',\s*value: 'headerAuth'", webhook.read_text("utf-8"))
    descriptions = package("@n8n/n8n-nodes-langchain") / "dist" / "utils" / "descriptions.js"
    prompt = re.search(
        r"exports\.textFromPreviousNode = \{.*?default: '(.*?)'",
        descriptions.read_text("utf-8"),
        re.S,
    )
    assert prompt and prompt.group(1) == "={{ $json.chatInput }}"
    assets = n8n_home() / "app" / "node_modules" / "n8n-editor-ui" / "dist" / "assets"
    if not assets.is_dir():
        skip_or_fail(f"n8n's editor is not installed in {assets}")
    editor = "\n".join(p.read_text(encoding="utf-8") for p in assets.glob("*.js"))
    assert '"filter.operator.notEmpty":`is not empty`' in editor
    lesson = lesson_text("01_scope_and_storage.ipynb")
    assert "set *Authentication* to **Header Auth**" in lesson
    assert "only when `{{ $json.userId }}` is not empty" in lesson
    assert "reads the customer's message from `chatInput`" in lesson


def test_an_agent_stores_each_tool_call_as_its_own_assistant_message():
    """Lesson 3's reference page: AI Agent 3.x makes each tool call a step and saves each step
    as an assistant message with that one call, then its result; a Gemini reply with a thought
    signature that asks for several tools shares one message."""
    folder = package("@n8n/n8n-nodes-langchain") / "dist" / "utils" / "agent-execution"
    steps = (folder / "buildSteps.js").read_text(encoding="utf-8")
    assert re.search(
        r"const sharedAIMessage = sharedThoughtSignature && batchTools\.length > 1\s*"
        r"\? buildSharedGeminiAIMessage\(",
        steps,
    )
    assert ": [buildIndividualAIMessage(toolId, toolName, toolInput, providerMetadata)];" in steps
    assert "tool_calls: [toolCall]" in steps  # one call in each individual message
    memory = (folder / "memoryManagement.js").read_text(encoding="utf-8")
    build = re.search(r"function buildMessagesFromSteps\(steps\) \{(.*?)\n\}", memory, re.S)
    assert build, "buildMessagesFromSteps moved"
    assert re.search(
        r"if \(existingAIMessage\) \{\s*messages\.push\(existingAIMessage\);.*?"
        r"messages\.push\(new messages_1\.ToolMessage\(",
        build.group(1),
        re.S,
    )
    notes = lesson_text("reference/03_window_buffer_memory_notes.ipynb")
    assert "`buildIndividualAIMessage`) and saves each step as an assistant message" in notes
    assert "Gemini reply with a thought signature that asks for several tools" in notes


def test_the_ai_agent_takes_a_prompt_defined_below():
    """Lesson 3's fix for ``{{ $now }}``: AI Agent 3.1's Source for Prompt (User Message) offers
    Define below, whose Prompt (User Message) field starts as the chat trigger's input."""
    dist = package("@n8n/n8n-nodes-langchain") / "dist"
    agent = (dist / "nodes" / "agents" / "Agent" / "V3" / "AgentV3.node.js").read_text()
    assert re.search(
        r"\.\.\.descriptions_1\.promptTypeOptions,\s*displayOptions: \{ show: \{ '@version': "
        r"\[\{ _cnd: \{ gte: 3\.1 \} \}\]",
        agent,
    )
    options = (dist / "utils" / "descriptions.js").read_text()
    current = options[options.index("exports.promptTypeOptions = {") :]
    assert "displayName: 'Source for Prompt (User Message)'" in current[:200]
    assert "name: 'Define below',\n            value: 'define'," in current[:900]
    assert re.search(
        r"exports\.textFromPreviousNode = \{\s*displayName: 'Prompt \(User Message\)',\s*"
        r"name: 'text',\s*type: 'string',\s*required: true,\s*default: '=\{\{ \$json\.chatInput \}\}',",
        options,
    )
    lesson = lesson_text("03_window_buffer_memory.ipynb")
    assert (
        "set *Source for Prompt (User Message)* to *Define below* and write "
        "`{{ $now }} {{ $json.chatInput }}` in *Prompt (User Message)*" in lesson
    )
