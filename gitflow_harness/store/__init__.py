"""Everything gfh writes: the event log, documents, session state, locks and configuration."""
