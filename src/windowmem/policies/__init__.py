"""Window policies: faithful models of the window memories of real agent frameworks."""

from windowmem.policies.base import Memory, TokenCounter, Unit, WindowPolicy
from windowmem.policies.n8n import N8nSimpleMemory

__all__ = ["Memory", "N8nSimpleMemory", "TokenCounter", "Unit", "WindowPolicy"]
