"""The agent hook runtime: `gfh hook ADAPTER EVENT`.

One module per host (`claude`, `cursor`, `codex`) turns the host's stdin JSON into one
`HookEvent` and renders one `Outcome` back in that host's format and exit-code contract.
`runtime` runs an event through evidence, session bookkeeping and the context sources plugged
into its lanes (`sources`), and fails open on any internal error.

This is the hottest code in the product: it runs on every tool call. Modules here import the
standard library and the lean parts of `store/` only, and defer everything else to the function
that needs it.
"""
