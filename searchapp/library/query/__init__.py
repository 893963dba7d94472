"""The query language, what a filter says (filters.py), its help, checks on a query, and history and saved searches.
Below search/, which ranks what a query asks for."""
