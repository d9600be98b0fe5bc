"""Running lab files at build time: the runner and its cache, the child process, the host, their protocol."""
