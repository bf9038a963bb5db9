"""Operations over notes and stores (lint, migrate, convert, hooks, index).

Pure functions that return report objects; submodules are imported on use.
"""
