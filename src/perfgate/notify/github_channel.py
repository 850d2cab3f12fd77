"""What the GitHub channels share: a repository's API client and the links their texts use."""

from __future__ import annotations

from typing import Any

from perfgate.github.client import GitHub
from perfgate.notify.base import Channel, Links


class GitHubChannel(Channel):
    """A channel that writes to one repository (``OWNER/REPO``) through :class:`GitHub`."""

    def __init__(self, repo: str, links: Links, **github_kw: Any):
        super().__init__(repo)
        self.gh = GitHub(repo, **github_kw)
        self.links = links

    def close(self) -> None:
        self.gh.close()
