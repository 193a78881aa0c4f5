"""Sessions: the event log (events), its one fold (fold), the SQLite store, resume/fork/replay and exports."""
