"""Members of containers (archives, mail attachments): their sync and opening one."""
