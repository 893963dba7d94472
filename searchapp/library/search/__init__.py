"""Where a search is ranked: retrieve, apply the filters (filter_scope.py), fuse, group and present hits (pipeline.py);
similar files and duplicates. Below sync/, above query/ (what a query and its filters say)."""
