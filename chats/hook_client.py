"""The hook client moved to ``chats/agent_plugin/hook_client.py`` (the Claude Code plugin's folder). This file
stays so that hooks registered by earlier versions of ``chats setup`` keep working (a missing file would make
Python exit 2, which Claude Code takes as "block this prompt or tool call"); rerun ``chats setup`` to update
them."""

import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent_plugin", "hook_client.py"),
               run_name="__main__")  # fmt: skip
