// SegueStore: the SQLite event store. See issue 3.
