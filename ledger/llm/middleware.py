"""Nothing on a web request waits for a model: requests run with the LLM off, except the recall gate.

The recall gate may call (its own short ``ALMANAC_RECALL_LLM_GATE_TIMEOUT``, the heuristic behind it); anything
else a request happens to run (an import distilled at once, a flush) takes the deterministic path. Model work
belongs in the worker, which enqueued tasks reach without this middleware.
"""

from __future__ import annotations

from ledger.llm.config import CallType, offline


class NoModelOnRequestPath:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with offline("web request", allow={CallType.RECALL_GATE}):
            return self.get_response(request)
