"""The text layer's ground floor (private): the format rules every reader shares."""
