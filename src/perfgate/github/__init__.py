"""GitHub REST calls for the pull-request comment (the privileged, fork-safe half of the PR check)."""
