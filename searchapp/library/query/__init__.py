"""The query language, its help, checks on a query, and history and saved searches."""
