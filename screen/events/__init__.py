"""Event discovery: anchors, packs, the proposal pass, the optional LLM refiner and the event store."""
