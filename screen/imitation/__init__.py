"""A local ScreenPipe imitation serving scripted sessions (tests, the demo, ``python -m screen.imitation``)."""

from __future__ import annotations

from screen.imitation.scripts import Segment, Session, build, merge
from screen.imitation.server import ScreenPipeImitation

__all__ = ["ScreenPipeImitation", "Segment", "Session", "build", "merge"]
