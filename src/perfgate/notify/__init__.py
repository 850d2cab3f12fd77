"""Alert delivery: every alert reaches every channel exactly once (``perfgate notify``).

``events`` turns the store's alerts into delivery events (pure), ``render`` words them, one module
per channel sends them (``webhook``, ``github_issues``, ``github_status``, ``github_commit_comment``,
behind ``base.Channel``; the GitHub ones share ``github_channel``), ``channels`` builds a channel from each ``--channel`` spec, ``ledger``
remembers what was delivered and spools what could not be, and ``deliver`` runs it all.
"""
