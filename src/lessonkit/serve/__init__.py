"""`lessonkit serve`: the local server (server, files, pagestore, headers as a host sends them), its own addresses
(devendpoints: live reload, events), and the watcher and rebuild loop (dev)."""
