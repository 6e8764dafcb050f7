"""ReadyClient: ready once the kernel's idle status for kernel_info arrives, IOPub included."""

from __future__ import annotations

import asyncio
import signal
import sys

import pytest
from jupyter_client.manager import AsyncKernelManager

from autograder.sandbox.kernels import ReadyClient
from tests import event_loop


async def _started() -> AsyncKernelManager:
    manager = AsyncKernelManager(kernel_name="python3")
    manager.client_class = "autograder.sandbox.kernels.ReadyClient"
    await manager.start_kernel(extra_arguments=["--HistoryManager.hist_file=:memory:"])
    return manager


def test_a_ready_client_sees_the_first_cells_output_and_the_kernel_info():
    async def scenario() -> tuple[dict, list[str]]:
        manager = await _started()
        client = manager.client()
        try:
            assert isinstance(client, ReadyClient)
            client.start_channels()
            await client.wait_for_ready(timeout=60)
            msg_id = client.execute("print('first'); print('second', flush=True)")
            reply = await client._async_recv_reply(msg_id, timeout=30)
            texts = []
            while True:  # everything the cell published, up to its idle status
                message = await client.iopub_channel.get_msg(timeout=30)
                if message["parent_header"].get("msg_id") != msg_id:
                    continue
                if message["msg_type"] == "stream":
                    texts.append(message["content"]["text"])
                if message["msg_type"] == "status" and (
                    message["content"]["execution_state"] == "idle"
                ):
                    break
            return reply["content"], texts
        finally:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)

    content, texts = event_loop.run(scenario())
    assert content["status"] == "ok"
    assert "".join(texts) == "first\nsecond\n"


def test_a_kernel_that_died_is_reported_not_waited_for():
    async def scenario() -> None:
        manager = await _started()
        client = manager.client()
        client.start_channels()
        try:
            await manager.signal_kernel(signal.SIGKILL)
            while await manager.is_alive():
                await asyncio.sleep(0.05)
            await client.wait_for_ready(timeout=30)
        finally:
            client.stop_channels()
            await manager.cleanup_resources()

    with pytest.raises(RuntimeError, match="died|respond"):
        event_loop.run(scenario())


def test_every_worker_kernel_gets_a_ready_client(tmp_path):
    from traitlets.config import Config

    from autograder.grading.worker import Job, worker_config

    job = Job("s1", "a1", tmp_path, tmp_path / "work", ("nb",), Config())
    config = worker_config(job)
    manager = AsyncKernelManager(kernel_name="python3", config=config)
    assert manager.client_factory is ReadyClient
    assert sys.executable  # the kernel spec is this Python's (nothing started here)
