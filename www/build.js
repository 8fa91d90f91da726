// The build this site is. `make dist` (tools/dist.mjs) writes the crate version and the git
// commit here; in www/ (no dist step) it says so, and no service worker is registered.
export const BUILD = { version: 'dev', commit: 'dev', stamp: 'dev (www/, not a dist build)', dist: false };
