"""GitHub REST calls: the pull-request comment (the privileged, fork-safe half of the PR check),
and the issues and commit statuses alert delivery writes."""
