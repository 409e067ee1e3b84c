# The case files under cases/ are mypy inputs, not tests.
collect_ignore_glob = ["cases/*", "mistakes/*"]
