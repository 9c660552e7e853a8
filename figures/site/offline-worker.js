/* The site's service worker: a page read online keeps working offline, on the next visit too.
 * Written into the site as sw.js by figures/site/offline_reading.py, which puts BUILD first:
 * the digest of the build (every file of the site), the search worker's scripts, and whether this
 * worker only retires an earlier one (under `mkdocs serve`). Plain ES2017, no dependencies.
 *
 * - Pages (navigations): network first, so a new release shows at once; offline, the page kept,
 *   or for a page not kept the site's offline page of the address's language (BUILD.offline:
 *   offline.html, en/offline.html, kept at install with each language's search index), which says
 *   so and lists the pages kept.
 * - Everything else a page loads (styles, scripts, fonts, figures, the search index): from the
 *   cache first. A figure's URL stays when its bytes change, so the cache is named by the build's
 *   digest: a new build is a new sw.js, whose worker drops the older caches of its own scope when
 *   it starts. Each release (mike: /0.1.0/, /0.2.0/, /latest/) is a scope of its own, with its own
 *   worker and cache, so a newer release never drops an earlier one's.
 * - A page's frames and files are kept only when the page asks (mha-offline.js, which mha-page.js
 *   fetches once the page is idle, unless the reader's browser asks to save data). */
/*BUILD*/
'use strict';

const SCOPE = self.registration.scope; // the site's root, under a sub-path too; a release's folder
const OWN = 'mha ' + SCOPE + ' '; // this scope's caches; another release's, with another scope, are not
const CACHE = OWN + BUILD.version;
const FROM_CACHE = new Set(['style', 'script', 'font', 'image', 'worker']); // a download is none

self.addEventListener('install', (event) => {
  self.skipWaiting();
  if (BUILD.retire) return;
  // What Material's search worker imports (it runs before this worker controls the first page),
  // and the offline pages with their language's search index (beside them: search/), which the
  // offline page of a language no page was read in searches with
  const indexes = BUILD.offline.map((p) => p.replace(/[^/]*$/, 'search/search_index.json'));
  const files = [...BUILD.search, ...BUILD.offline, ...indexes].map((p) => new URL(p, SCOPE).href);
  event.waitUntil(caches.open(CACHE).then((cache) => keep(cache, files)));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => (n.startsWith(OWN) || n.startsWith('mha-')) && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => (BUILD.retire ? self.registration.unregister() : self.clients.claim())));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (BUILD.retire || request.method !== 'GET' || !request.url.startsWith(SCOPE)) return;
  if (request.mode === 'navigate') event.respondWith(networkFirst(event));
  else if (FROM_CACHE.has(request.destination) || request.url.endsWith('/search_index.json')) {
    event.respondWith(cacheFirst(request));
  }
});

// A page lists the files it needs offline; the reply says how many are kept and which failed.
self.addEventListener('message', (event) => {
  const data = event.data || {};
  if (data.type !== 'keep' || BUILD.retire || !event.ports[0]) return;
  const urls = (data.urls || []).filter((u) => typeof u === 'string' && u.startsWith(SCOPE));
  event.waitUntil(caches.open(CACHE).then((cache) => keep(cache, urls))
    .then((failed) => event.ports[0].postMessage({ type: 'kept', version: BUILD.version, count: urls.length, failed })));
});

// Fetch into the cache those of `urls` it does not hold, four at a time; the URLs that failed.
async function keep(cache, urls) {
  const todo = Array.from(new Set(urls));
  const failed = [];
  const one = async () => {
    for (let url = todo.shift(); url; url = todo.shift()) {
      if (await cache.match(url, { ignoreSearch: true })) continue;
      try {
        const response = await fetch(url, { credentials: 'same-origin' });
        if (keepable(response)) await cache.put(url, response);
        else failed.push(url);
      } catch (e) {
        failed.push(url);
      }
    }
  };
  await Promise.all([one(), one(), one(), one()]);
  return failed;
}

// A whole answer of this site (no error, no redirect a navigation would refuse, no range).
const keepable = (response) => response.ok && response.status === 200 && response.type === 'basic' && !response.redirected;

// The network's page, kept for later; the page kept when the network fails, or keeps silent for
// LIE_FI_MS (a train's network that neither answers nor fails): the network's answer still
// replaces the kept page for the next visit.
const LIE_FI_MS = 4000;

async function networkFirst(event) {
  const cache = await caches.open(CACHE);
  const key = event.request.url.split('?')[0]; // a search highlight, ?h=…, is the same page
  const network = fetch(event.request).then((response) => {
    const html = (response.headers.get('content-type') || '').startsWith('text/html');
    if (keepable(response) && html) event.waitUntil(cache.put(key, response.clone()));
    return response;
  });
  event.waitUntil(network.catch(() => null));
  const kept = await cache.match(key);
  if (!kept) return network.catch((error) => offlinePage(cache, key).then((page) => page || Promise.reject(error)));
  const silent = new Promise((resolve) => { setTimeout(resolve, LIE_FI_MS, kept); });
  return Promise.race([network.catch(() => kept), silent]);
}

// The offline page of the language `url` is in (the one whose folder holds it, else the root's),
// served at `url`: its links start at its <base>, which becomes the site's root. None if not kept.
async function offlinePage(cache, url) {
  const folder = (p) => new URL(p.replace(/[^/]*$/, ''), SCOPE).href;
  const path = BUILD.offline.filter((p) => url.startsWith(folder(p))).sort((a, b) => b.length - a.length)[0];
  const kept = path && await cache.match(new URL(path, SCOPE).href);
  if (!kept) return null;
  const html = (await kept.text()).replace(/<base href="[^"]*">/, `<base href="${SCOPE}">`);
  return new Response(html, { status: 503, statusText: 'Offline', headers: { 'Content-Type': 'text/html; charset=utf-8' } });
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreSearch: request.url.endsWith('/search_index.json') });
  if (kept) return kept;
  const response = await fetch(request);
  if (keepable(response)) cache.put(request, response.clone());
  return response;
}
