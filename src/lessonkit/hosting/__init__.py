"""Hosting the built site: headers for every host, the dev server and its watcher, the service worker."""
