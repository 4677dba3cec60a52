"""What one hook call shares with the domain: the event and its answers (`model`), the call's
time budget (`budget`), the session's runtime state (`session`) and the hook's configuration
(`settings`). It imports only `store` and the standard library, so `ways` and `ritual` can read
an event and answer it without importing the adapters of `agent`."""
