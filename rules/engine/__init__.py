"""The rules engine: pure Python, no Django.

Everything a ruleset needs (dice, the ruleset interface, the registry) lives here so
that rules can be tested, benchmarked and reasoned about without a database. The
Django side of the ``rules`` app (``rules/play/services.py``) persists and locks around it.
A test (``rules/engine/tests/test_engine_purity.py``) fails if anything here imports Django.
"""
