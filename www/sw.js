// The service worker of a `make dist` build (Kernel Playground works offline after one visit).
// tools/dist.mjs fills in BUILD and PRECACHE: every deploy is new bytes here, so browsers install
// the new worker, which precaches the new files, takes over at once and deletes the old caches.
//  - hashed files (name.0123456789.js/.css/.wasm) never change: cache first, network on a miss;
//  - pages and everything else: network first (revalidated), the cached copy when the network
//    fails or hangs for more than NET_TIMEOUT_MS.
// Every URL is relative to this file, so the site works under any sub-path.
// Cross-origin isolation for static hosts that cannot send headers (issue 21 §3, the
// coi-serviceworker technique): every response this worker gives a page carries
// `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`,
// so from the next navigation on the page is `crossOriginIsolated` and paper B's worker may load
// the threaded build. All the site's files are same-origin, so require-corp blocks nothing. No
// forced reload: the first visit simply runs on one thread.
const BUILD = 'dev';
const PRECACHE = [];
const CACHE = `kplay-${BUILD}`;
const NET_TIMEOUT_MS = 4000;
const HASHED = /\.[0-9a-f]{10}\.(?:js|mjs|css|wasm)$/;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // A hashed file the page has just loaded comes from the HTTP cache (its content never
    // changes), not a second download; the rest is revalidated.
    await cache.addAll(PRECACHE.map((u) => new Request(u, { cache: HASHED.test(u) ? 'default' : 'no-cache' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const k of await caches.keys()) if (k.startsWith('kplay-') && k !== CACHE) await caches.delete(k);
    await self.clients.claim();
  })());
});

// The cache key of a page: its URL without the query (`?speed=…&classroom=1` is the same page).
const pageKey = (url) => {
  const u = new URL(url);
  u.search = '';
  u.hash = '';
  return u.href;
};

// The response with the isolation headers (an opaque or error response is left as it is).
// CORP cross-origin so that a course page (isolated or not) may still frame embed.html.
function isolated(res) {
  if (!res || res.status === 0 || res.type === 'opaque') return res;
  const headers = new Headers(res.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'cross-origin');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

async function cacheFirst(req) {
  const hit = await caches.match(req);
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok) (await caches.open(CACHE)).put(req, res.clone());
  return res;
}

async function networkFirst(req) {
  const key = pageKey(req.url);
  const cached = await caches.match(key, { ignoreSearch: true });
  const net = (async () => {
    let res = await fetch(req.url, { cache: 'no-cache', credentials: 'same-origin' });
    // A navigation must not be answered with a redirected response: copy it.
    if (res.redirected) res = new Response(res.body, { status: res.status, statusText: res.statusText, headers: res.headers });
    if (res.ok) await (await caches.open(CACHE)).put(key, res.clone());
    return res;
  })();
  if (!cached) return net;
  const timeout = new Promise((resolve) => setTimeout(() => resolve(cached), NET_TIMEOUT_MS));
  return Promise.race([net.catch(() => cached), timeout]);
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== location.origin || !url.href.startsWith(self.registration.scope)) return;
  event.respondWith((HASHED.test(url.pathname) ? cacheFirst(req) : networkFirst(req)).then(isolated));
});
