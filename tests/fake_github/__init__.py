"""A fake GitHub REST API for the alert-delivery tests: a real HTTP server on 127.0.0.1 that
validates every request and response against GitHub's published contract
(``contracts/github/openapi.json``) and injects dropped connections, 5xx, 429 and hangs."""
