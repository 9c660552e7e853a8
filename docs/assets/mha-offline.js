/* A page read online keeps working offline. Fetched by mha-page.js once the page is idle (and not
 * when the browser asks to save data, nor from disk), this registers the site's service worker
 * (sw.js, figures/site/offline-worker.js) and hands it every file the page may need offline: the
 * page, what it loaded, every frame of its figures in each look (light and dark, wide and narrow,
 * the frames the slider has not shown yet), its language's search and the glossary when the page
 * links it. Its outcome is in <html data-mha-offline>: "kept", "partial" or "failed" ("save-data":
 * mha-page.js). Offline, the search's results for pages not kept say so. Plain ES2017. */
(() => {
  'use strict';
  const meta = document.querySelector('meta[name="mha-worker"]');
  if (!meta || !('serviceWorker' in navigator)) return;
  const said = (what) => { document.documentElement.dataset.mhaOffline = what; };
  const absolute = (u) => new URL(u, document.baseURI).href.split('#')[0];

  function pageFiles() {
    const files = new Set([window.location.href.split(/[?#]/)[0]]);
    performance.getEntriesByType('resource').forEach((e) => files.add(e.name.split('#')[0]));
    document.querySelectorAll('img, source').forEach((el) => {
      [el.getAttribute('src'), el.dataset.src].forEach((u) => { if (u) files.add(absolute(u)); });
      [el.getAttribute('srcset'), el.dataset.srcset].forEach((set) => {
        if (set) set.split(',').forEach((c) => { const u = c.trim().split(/\s+/)[0]; if (u) files.add(absolute(u)); });
      });
    });
    // the glossary, which the page's terms link (docs/glossary.*.md: glossary/, en/glossary/)
    document.querySelectorAll('a[href]').forEach((a) => {
      const u = new URL(a.href);
      if (u.origin === window.location.origin && /\/glossary\/$/.test(u.pathname)) files.add(u.origin + u.pathname);
    });
    const config = document.getElementById('__config'); // Material's: its search worker and index
    if (config) {
      try {
        const c = JSON.parse(config.textContent);
        if (c.search) files.add(absolute(c.search));
        if (c.base) files.add(absolute(c.base.replace(/\/?$/, '/') + 'search/search_index.json'));
      } catch (e) { /* no search on this page */ }
    }
    return Array.from(files);
  }

  // Offline, each search result whose page is not kept is marked (data-mha-kept="no") and says so
  const NOT_KEPT = document.documentElement.lang.startsWith('en') ? 'not saved for offline reading' : '未保存，离线时打不开';
  function markResults() {
    if (navigator.onLine) return;
    document.querySelectorAll('.md-search-result__link:not([data-mha-kept])').forEach((a) => {
      a.dataset.mhaKept = '';
      caches.match(a.href.split('#')[0], { ignoreSearch: true }).then((kept) => {
        a.dataset.mhaKept = kept ? 'yes' : 'no';
        const title = a.querySelector('h1, h2') || a.lastElementChild || a;
        if (!kept) title.after(Object.assign(document.createElement('p'), { className: 'mha-not-kept', textContent: NOT_KEPT }));
      });
    });
  }
  const results = document.querySelector('.md-search-result');
  if (results && window.caches) new MutationObserver(markResults).observe(results, { childList: true, subtree: true });

  navigator.serviceWorker.register(meta.content)
    .then(() => navigator.serviceWorker.ready)
    .then((registration) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = (e) => said(e.data.failed.length ? 'partial' : 'kept');
      registration.active.postMessage({ type: 'keep', urls: pageFiles() }, [channel.port2]);
    })
    .catch(() => said('failed'));
})();
