"""Event discovery: spans read into activity families and outcomes, the proposal pass, the optional LLM namer
and the event store."""
