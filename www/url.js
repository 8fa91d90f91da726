// The one owner of the page's address (issue 20). Everything a link carries is read and written
// here, nowhere else:
//   #spec=<URI-encoded JSON>            the page's experiment (common.js)
//   #lesson=a&step=3                    a built-in lesson and its step (lesson.js)
//   #lesson-data=<packed>&step=3        a lecturer's lesson carried in the link (lesson.js)
//   ?speed=15 | ?speed=max              the player's speed (player.js)
//   ?classroom=1                        classroom mode (lesson.js, front.js)
//   ?embed=… / ?plot=…                  an embedded plot or lesson step (embed.js, lesson-embed.js)
// Writes use history.replaceState (no history entry per change, no hashchange event) and keep
// every part they do not change, so the speed survives a new spec and the spec a new speed.

/** The address's parts: `query` (URLSearchParams) and the raw `hash` without its `#`. */
export function readUrl() {
  return { query: new URLSearchParams(location.search), hash: location.hash.replace(/^#/, '') };
}

/** One query parameter's value, or null when absent (`?speed=`, `?classroom=`, `?embed=`). */
export function queryParam(key) {
  return readUrl().query.get(key);
}

/** The experiment in the hash (`#spec=…`) as JSON text, or null; throws on a bad encoding. */
export function specText() {
  const m = readUrl().hash.match(/^spec=(.*)$/);
  return m ? decodeURIComponent(m[1]) : null;
}

/**
 * Change the address in place. `query`: parameters to set (a string) or remove (null);
 * `hash`: the new hash without `#` ('' removes it; undefined keeps it).
 */
export function writeUrl({ query = {}, hash } = {}) {
  const u = readUrl();
  for (const [k, v] of Object.entries(query)) {
    if (v === null || v === undefined) u.query.delete(k); else u.query.set(k, String(v));
  }
  const qs = u.query.toString();
  const h = hash === undefined ? u.hash : hash;
  history.replaceState(null, '', `${location.pathname}${qs ? `?${qs}` : ''}${h ? `#${h}` : ''}`);
}

/** Put the experiment (JSON text) into the hash. */
export function writeSpec(text) {
  writeUrl({ hash: `spec=${encodeURIComponent(text)}` });
}
