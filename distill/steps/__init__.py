"""The memory pass's steps, one module each, each with one entry point ``run(ctx) -> ctx`` over
``context.PassContext``. Their order is listed in one place: ``distill.pipeline.STEPS``."""
