// Offline after the first visit: register the service worker (sw.js) of a `make dist` build,
// only over http(s) (a page opened from file: has none), after the page has loaded, so the
// precache never competes with the page's own first load. One line in each page:
// <script type="module" src="sw-register.js"></script>
import { BUILD } from './build.js';

if (BUILD.dist && 'serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  const register = () => navigator.serviceWorker.register('sw.js')
    .catch((e) => console.warn(`offline copy unavailable: ${e.message ?? e}`));
  if (document.readyState === 'complete') register(); else window.addEventListener('load', register, { once: true });
}
