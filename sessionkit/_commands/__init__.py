"""The click commands behind ``sessionkit``, grouped by job; :mod:`sessionkit._cli` joins them."""
