"""The warm index: a long-lived process (`searchapp watch`, the window) answers the command line's searches.

  wire.py     the protocol: one JSON request line, one JSON reply line; a SearchResult as plain data and back,
              checked strictly on the way in
  server.py   the listening thread inside the long-lived process (a private Unix socket in the data dir)
  client.py   what the full command line's `searchapp search` asks first; any doubt about the socket or its
              reply means "search directly"
  exchange.py the asking side's one exchange (socket checks, a request line, a reply line): also what the thin
              entry point (cli/fast.py) sends a whole command through; only the standard library

The client's side imports neither numpy, hnswlib nor torch: that start-up is what the warm path saves.
"""
