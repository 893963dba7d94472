"""Finding: retrieve, fuse, filter, group and present hits; similar files and duplicates."""
