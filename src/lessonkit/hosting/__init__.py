"""What a host needs beside the pages: its headers (headers: _headers, nginx.conf and the pages' <meta> policy) and
the service worker that keeps the course offline after a first visit (offline)."""
