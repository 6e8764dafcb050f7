"""What a call carries: the model keeps nothing between calls, so each call's array is everything.

Lesson 2's question. :mod:`~windowmem.calls.agent_calls` builds every model call of an n8n
AI Agent run, with memory and without; :mod:`~windowmem.calls.memory_writes` says what a
run writes to memory when it ends; :mod:`~windowmem.calls.advisor_calls` is the same
stateless model in Spring AI's words; :mod:`~windowmem.calls.tool_input` and
:mod:`~windowmem.calls.tool_scenario` say what a tool's sub-workflow receives;
:mod:`~windowmem.calls.memory_inputs` which n8n nodes take a memory at all.
"""
