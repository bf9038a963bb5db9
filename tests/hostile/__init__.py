"""The hostile-input corpus (generated; see :mod:`tests.hostile.cases`)."""
