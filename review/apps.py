from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"

    def ready(self) -> None:
        from distill import hooks
        from review.queries import daily_budget

        # The gate keeps each day's new review items within the budget the person sets on the Review page.
        hooks.register_review_budget(daily_budget)

        # A review action's snapshots of a memory are redacted in place when a person is forgotten.
        from ledger.forget.coverage import declare

        declare("review.ReviewAction", redacted=("before", "detail"), exempt={"kind": "a vocabulary value"})
