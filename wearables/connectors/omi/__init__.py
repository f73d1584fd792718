"""Omi connector: the Integration API (``sk_…`` app key + app id + user id) or the Developer API (``omi_dev_…``)."""
