"""The warm index: a long-lived process (`searchapp watch`, the window) answers the command line's searches.

  protocol.py the protocol: one JSON request line, one JSON reply line; one op for a search (a command as
              typed, answered with what to print), checked strictly on the way in
  server.py   the listening thread inside the long-lived process (a private Unix socket in the data dir)
  ping.py     `status`'s ping: which process serves the library
  exchange.py the asking side's one exchange (socket checks, a request line, a reply line): what the thin entry
              point and the full command line (cli/warm_ask.ask_command) send a command through; any doubt about the
              socket or its reply means "search directly"; only the standard library

The client's side imports neither numpy, hnswlib nor torch: that start-up is what the warm path saves.
"""
