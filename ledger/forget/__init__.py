"""Forgetting, in one place: ``services`` makes the content-free forget commits and lasting refusals; ``hooks``
is where the apps that keep copies (recall, transcripts, chats, screen) register to scrub them in the same
transaction, and where ingest asks which names are forgotten."""
